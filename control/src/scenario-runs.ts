// Fault-lab scenarios run from the API: one at a time in the background, through the lab's own
// runScenario (the same load, faults, audit and report files as `pnpm fault`), with their state and
// verdict kept in memory for GET /scenarios/runs/:id.
import { randomUUID } from "node:crypto";
import path from "node:path";
import { restartAppsWith, type Stack } from "@orderflow/infra";
import { faultReportsDir } from "@orderflow/lab/run/lab.ts";
import { type LabOptions, runScenario, type ScenarioRun } from "@orderflow/lab/run/run-scenario.ts";
import type { Expectation, Scenario } from "@orderflow/lab/run/scenario.ts";
import { findScenario, SCENARIOS } from "@orderflow/lab/scenarios/index.ts";
import { localTarget } from "@orderflow/lab/targets/local.ts";
import type { LabTarget } from "@orderflow/lab/targets/target.ts";
import {
  DEFINED_SCENARIOS,
  type DefinedScenario,
  loadDefinition,
  type ScenarioDefinition,
} from "@orderflow/load/scenario-definitions.ts";

export interface ScenarioRunState {
  id: string;
  scenario: string;
  state: "running" | "passed" | "failed" | "error";
  startedAt: string;
  finishedAt?: string;
  durationS: number;
  rate?: number;
  verdict?: Expectation;
  /** URLs of the report files, under /reports/. */
  report?: { html: string; json: string };
  /** Why the run could not finish (state "error"). */
  error?: string;
}

export type ScenarioInfo = {
  name: string;
  kind: Scenario["kind"];
  summary: string;
} & Partial<ScenarioDefinition>;

export interface ScenarioRuns {
  list(): ScenarioInfo[];
  /** Throws ScenarioRunError 404 (unknown scenario) or 409 (another run in progress). */
  start(name: string, opts: { durationS?: number; rate?: number }): ScenarioRunState;
  get(id: string): ScenarioRunState | undefined;
  /** The run in progress, for the flow. */
  current(): { id: string; name: string; state: string } | null;
  /** The folder report URLs point into. */
  reportsDir: string;
  /** Waits for the run in progress (it heals what it broke before it ends). */
  close(): Promise<void>;
}

export class ScenarioRunError extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

export interface ScenarioRunsOptions {
  /** The reports folder; runs write into its fault/ folder, like `pnpm fault`. */
  reportsDir: string;
  log: (line: string) => void;
  /** The lab's runner; a test may pass a quicker one. */
  run?: (t: LabTarget, sc: Scenario, o: LabOptions) => Promise<ScenarioRun>;
  /** Runs kept for GET /scenarios/runs/:id. */
  keep?: number;
}

/** `pnpm fault`'s default load length. */
const DEFAULT_DURATION_S = 20;

const definitionOf = (name: string): ScenarioDefinition | undefined =>
  (DEFINED_SCENARIOS as readonly string[]).includes(name)
    ? loadDefinition(name as DefinedScenario)
    : undefined;

/** Every scenario of the lab, with its shared definition where it has one. */
function listScenarios(): ScenarioInfo[] {
  return SCENARIOS.map((sc) => ({
    ...definitionOf(sc.name),
    name: sc.name,
    kind: sc.kind,
    summary: sc.summary,
  }));
}

/**
 * Scenarios where runs cannot happen (compose: a run restarts the local stack's processes with
 * variants): listed, but every start is a 409 saying why (404 for an unknown name, as always).
 */
export function createUnrunnableScenarios(reason: string, reportsDir: string): ScenarioRuns {
  return {
    reportsDir: faultReportsDir(reportsDir),
    list: listScenarios,
    start(name) {
      if (!findScenario(name)) throw new ScenarioRunError(404, `unknown scenario "${name}"`);
      throw new ScenarioRunError(409, reason);
    },
    get: () => undefined,
    current: () => null,
    close: async () => {},
  };
}

export function createScenarioRuns(s: Stack, opts: ScenarioRunsOptions): ScenarioRuns {
  const run = opts.run ?? runScenario;
  const target = localTarget(s);
  const keep = opts.keep ?? 50;
  const dir = faultReportsDir(opts.reportsDir);
  const runs = new Map<string, ScenarioRunState>();
  let inProgress: { state: ScenarioRunState; done: Promise<void> } | null = null;
  const url = (file: string) =>
    `/reports/${path.relative(dir, file).split(path.sep).map(encodeURIComponent).join("/")}`;

  async function execute(state: ScenarioRunState, sc: Scenario): Promise<void> {
    try {
      const r = await run(target, sc, {
        durationMs: state.durationS * 1_000,
        long: false,
        ...(state.rate === undefined ? {} : { rate: state.rate }),
        reportsDir: dir,
        log: opts.log,
      });
      state.verdict = r.expectation;
      state.report = { html: url(r.files.html), json: url(r.files.json) };
      state.state = r.expectation.passed ? "passed" : "failed";
    } catch (e) {
      state.state = "error";
      state.error = (e as Error).message;
      opts.log(`scenario run ${state.id} (${sc.name}) failed: ${state.error}`);
    } finally {
      // As `pnpm fault` leaves it: the apps as `stack up` made them, whatever variant the scenario ran.
      await restartAppsWith(s, {}).catch((e: unknown) =>
        opts.log(`restoring the apps after ${sc.name} failed: ${(e as Error).message}`),
      );
      state.finishedAt = new Date().toISOString();
    }
  }

  return {
    reportsDir: dir,
    list: listScenarios,
    start(name, o) {
      const sc = findScenario(name);
      if (!sc) throw new ScenarioRunError(404, `unknown scenario "${name}"`);
      if (inProgress)
        throw new ScenarioRunError(
          409,
          `scenario ${inProgress.state.scenario} is running (run ${inProgress.state.id}); one at a time`,
        );
      const state: ScenarioRunState = {
        id: randomUUID(),
        scenario: sc.name,
        state: "running",
        startedAt: new Date().toISOString(),
        durationS: o.durationS ?? definitionOf(sc.name)?.durationS ?? DEFAULT_DURATION_S,
        ...(o.rate === undefined ? {} : { rate: o.rate }),
      };
      runs.set(state.id, state);
      for (const id of [...runs.keys()].slice(0, Math.max(0, runs.size - keep))) runs.delete(id);
      const done = execute(state, sc).finally(() => {
        inProgress = null;
      });
      inProgress = { state, done };
      opts.log(`scenario run ${state.id}: ${sc.name} for ${state.durationS} s`);
      return { ...state };
    },
    get: (id) => {
      const r = runs.get(id);
      return r ? structuredClone(r) : undefined;
    },
    current: () =>
      inProgress
        ? { id: inProgress.state.id, name: inProgress.state.scenario, state: inProgress.state.state }
        : null,
    async close() {
      await inProgress?.done;
    },
  };
}
