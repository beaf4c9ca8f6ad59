// The load scenarios' numbers (rate, length, settle, fault timeline, thresholds) live once, in
// load/scenarios/<name>.json: `pnpm fault` reads them here and the k6 scripts `open()` the same
// files. A definition that does not parse stops the lab at start-up, naming the file and the field.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/**
 * The actions a scenario step may name: every action POST /faults (and `pnpm stack chaos`) knows, plus
 * the poison publisher.
 */
export const STEP_ACTIONS = [
  "kill",
  "stop",
  "start",
  "kill-node",
  "stop-node",
  "start-node",
  "stop-broker",
  "start-broker",
  "stop-redis",
  "start-redis",
  "restart-postgres",
  "partition",
  "heal-partition",
  "publish-poison",
] as const;

const seconds = z.number().finite().nonnegative();

/**
 * One step of the fault timeline. atS: when it fires, in seconds of a run of the definition's
 * durationS. untilS: when it ends: a step with everyS fires again every everyS seconds before then; a
 * step without undoes its action then (start of the node it killed, start-redis...). durationS: a
 * timed fault, undone that long after it fired (POST /faults' durationS), whatever the run's length.
 */
export const faultStepSchema = z
  .strictObject({
    atS: seconds,
    action: z.enum(STEP_ACTIONS),
    target: z.string().min(1).optional(),
    durationS: z.number().int().min(1).max(600).optional(),
    everyS: z.number().finite().positive().optional(),
    untilS: seconds.optional(),
  })
  .refine((f) => f.untilS === undefined || f.untilS > f.atS, { message: "untilS must come after atS" })
  .refine((f) => f.everyS === undefined || f.untilS !== undefined, { message: "everyS needs untilS" })
  .refine((f) => f.durationS === undefined || f.untilS === undefined, {
    message: "a step is either timed (durationS) or held until untilS, not both",
  });

const thresholdList = z.array(z.string().min(1)).optional();

export const scenarioDefinitionSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9-]+$/),
    summary: z.string().min(1),
    /** Orders per second offered. */
    rate: z.number().finite().positive(),
    /** The run's length in seconds; every atS/untilS is a time of a run of this length. */
    durationS: z.number().finite().positive(),
    /** The faults need at least this much load around them (the broker outage lasts 20 s). */
    minDurationS: z.number().finite().positive().optional(),
    /** How long the audit waits for the system to settle after the load. */
    settleS: z.number().finite().positive().max(600),
    faults: z.array(faultStepSchema),
    /** Messages the faults are meant to park (the poison messages); 0 when absent. */
    parked: z.number().int().nonnegative().optional(),
    /** k6 thresholds on the orders' requests and checks. */
    thresholds: z.strictObject({
      http_req_failed: thresholdList,
      http_req_duration: thresholdList,
      checks: thresholdList,
    }),
  })
  .refine((d) => d.faults.every((f) => (f.untilS ?? f.atS) <= d.durationS), {
    message: "every fault must end within durationS",
  });

export type FaultStep = z.infer<typeof faultStepSchema>;
export type ScenarioDefinition = z.infer<typeof scenarioDefinitionSchema>;

/** The load scenarios that have a definition (and a k6 script). */
export const DEFINED_SCENARIOS = [
  "steady",
  "leader-loss",
  "broker-outage",
  "consumer-crash-loop",
  "relay-crash",
  "redis-outage",
  "db-restart",
  "poison-messages",
] as const;
/**
 * Definitions the fault lab runs with no k6 script: the partitions cut links between namespaces that only
 * the local stack makes (`pnpm stack up --netns`).
 */
export const LAB_ONLY_SCENARIOS = [
  "partition-halves",
  "partition-ring",
  "partition-isolate",
  "partition-bridge",
] as const;
export type DefinedScenario = (typeof DEFINED_SCENARIOS)[number] | (typeof LAB_ONLY_SCENARIOS)[number];

export const definitionsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../scenarios");

export function parseDefinition(text: string, source: string): ScenarioDefinition {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${source}: not JSON: ${(e as Error).message}`);
  }
  const r = scenarioDefinitionSchema.safeParse(raw);
  if (!r.success)
    throw new Error(
      `${source}: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  return r.data;
}

export function loadDefinition(name: DefinedScenario, dir = definitionsDir): ScenarioDefinition {
  const file = path.join(dir, `${name}.json`);
  const def = parseDefinition(fs.readFileSync(file, "utf8"), file);
  if (def.name !== name) throw new Error(`${file}: name "${def.name}" is not the file's "${name}"`);
  return def;
}

/**
 * Orders per second the lab offers when nothing says otherwise: the baseline's (steady.json). Scenarios
 * without a definition (the pitfalls and their pairs, network-blackhole) and the demo's burst take it.
 * Every definition repeats the same figure (test/scenario-definitions.test.ts holds them equal): the k6
 * scripts read each file's own "rate", so a change is a change of every file's "rate".
 */
export const DEFAULT_RATE = loadDefinition("steady").rate;

/**
 * Requests the lab keeps in flight before it drops (and counts) the next: two seconds of answers at the
 * offered rate, never below 100. A fault that stalls answers for a second (three broker nodes booting on
 * two cores) must show as latency; a fixed cap of 100 dropped 1.25% of broker-outage's requests at 100/s.
 * The k6 scripts apply the same rule (k6/lib/scenario.js).
 */
export const inFlightCap = (rate: number) => Math.max(100, Math.ceil(rate * 2));

/** The lab's Scenario fields a definition gives. */
export function scenarioNumbers(def: ScenarioDefinition) {
  return {
    summary: def.summary,
    rate: def.rate,
    settleMs: def.settleS * 1000,
    ...(def.minDurationS === undefined ? {} : { minDurationMs: def.minDurationS * 1000 }),
  };
}

/**
 * A definition's time (seconds of a run of durationS) -> ms into a run of runMs: `--duration` stretches
 * or shrinks the timeline, never a fault's own durationS or everyS.
 */
export const timeScale =
  (def: Pick<ScenarioDefinition, "durationS">, runMs: number) =>
  (s: number): number =>
    (s * runMs) / def.durationS;

/** The definition's steps of that action; throws when it has none (the file and the code disagree). */
export function stepsOf(def: ScenarioDefinition, action: FaultStep["action"]): FaultStep[] {
  const steps = def.faults.filter((f) => f.action === action);
  if (steps.length === 0) throw new Error(`scenario ${def.name}: no "${action}" step in its definition`);
  return steps;
}

/** The one step of that action, which must be held until untilS. */
export function heldStep(def: ScenarioDefinition, action: FaultStep["action"]) {
  const [step] = stepsOf(def, action);
  if (step?.untilS === undefined) throw new Error(`scenario ${def.name}: its "${action}" step needs untilS`);
  return { ...step, untilS: step.untilS };
}
