// What a scenario is: a name, the apps' environment it needs (a pitfall switch, a proxy), a fault
// script that runs while the load does, and what its audit must show to pass.
import type { AppVariant, Stack } from "@orderflow/infra";
import type { RunResult } from "@orderflow/load/result.ts";
import type { AuditResult } from "../audit/audit.ts";
import type { FaultApplier } from "../faults/control-client.ts";
import type { TargetKind } from "../targets/target.ts";
import type { WatchedAlert } from "./alerts.ts";

export interface FaultContext {
  /** Ports and credentials of what the run targets (the compose stack's published ones there). */
  stack: Stack;
  target: TargetKind;
  /** Applies a fault action ({ action, target }) the way `pnpm stack chaos` and POST /faults do. */
  faults: FaultApplier;
  /** The load's length in ms; a fault script times itself against it and must end before it. */
  durationMs: number;
  long: boolean;
  /** Records an event on the run's timeline: "fault injected: ...", "fault healed: ...". */
  mark: (name: string, detail?: unknown) => void;
  /**
   * Measures what is in flight (in-flight.ts: messages in the outboxes and work queues, orders not final)
   * and records it for the report under `action`. Await it right before each fault action: the figures
   * are those at the moment the fault hits. Bounded (2 s); it never throws.
   */
  measureInFlight: (action: string) => Promise<void>;
  /** Resolves after ms, or earlier when the load ended (so a script never outlives the run). */
  sleep: (ms: number) => Promise<void>;
  log: (line: string) => void;
  /** A scenario may report its own figures (injected poison messages, proxy ports...). */
  facts: Record<string, unknown>;
  /** The run's prefix: a SKU or customer id named with it is audited with the run's own. */
  prefix: string;
}

export interface Outcome {
  run: RunResult;
  audit: AuditResult;
  /** Messages parked in this run, per parking queue (after minus before). */
  parkedDelta: Record<string, number>;
  /** 2xx share of requests meant to start inside fault windows (null without a fault). */
  availabilityDuringFaults: number | null;
  facts: Record<string, unknown>;
  /** What Alertmanager held during the run and the settle phase, one entry per firing episode. */
  alerts: WatchedAlert[];
}

/** An alert the fault must raise: its rule's name and the labels it must carry (the node it killed). */
export interface ExpectedAlert {
  name: string;
  labels: Record<string, string>;
}

/** What a scenario declares: an alert name, and the label sets of the alerts of that name it expects. */
export interface DeclaredAlert {
  name: string;
  /** One label set per alert, from what the fault did (facts: the node it killed); default: one, any labels. */
  each?: (facts: Record<string, unknown>, s: Stack) => Array<Record<string, string>>;
}

export interface Expectation {
  passed: boolean;
  /** Each check with what it found, e.g. "lost = 0 (expected 0)". */
  checks: { name: string; ok: boolean; detail: string }[];
}

export interface Scenario {
  name: string;
  kind: "normal" | "pitfall";
  summary: string;
  /**
   * How the stack runs the apps during this scenario: extra environment and/or the lab's entry files
   * instead of the apps' own (infra's AppVariant; {} = the services' own processes, as deployed).
   */
  apps?: (s: Stack, facts: Record<string, unknown>) => Promise<AppVariant> | AppVariant;
  /** Runs beside the load; returns when its last fault is healed. */
  fault?: (ctx: FaultContext) => Promise<void>;
  /**
   * How it runs against the compose stack's containers, where that differs (a network fault is a
   * container detached from its network instead of a proxy in front of a process); unset: the same.
   */
  compose?: Partial<Pick<Scenario, "summary" | "apps" | "fault" | "cleanup" | "settleMs">>;
  /** Why it runs only on the local stack (it swaps the apps' code); unset: it runs on both. */
  localOnly?: string;
  /** Cleans up what apps or fault set up (a proxy), after the audit and before the verdict. */
  cleanup?: (facts: Record<string, unknown>, s: Stack) => Promise<void>;
  /** The fault needs at least this much load around it (the broker outage lasts 20 s). */
  minDurationMs?: number;
  /** Orders per second offered; the default suits two shared cores. */
  rate?: number;
  /** How long the audit waits for the system to settle. */
  settleMs?: number;
  /**
   * Alerts the fault must raise. Before the load the lab waits (bounded) until none of these names is
   * active (a node a previous run left down still has its alert open); after the audit it waits
   * (bounded) until each has reached Alertmanager and resolved, and adds a check for each edge.
   */
  alerts?: DeclaredAlert[];
  expect: (o: Outcome) => Expectation;
  /**
   * The damage in the scenario's own terms (a pitfall's: ghost units, rows failed, laps of a cycle...),
   * shown in the summary table and the report beside the audit's counts.
   */
  damage?: (o: Outcome) => Record<string, number>;
  /** A broker probe's counts (lost, duplicated, unexpected, recovered...), for scenarios that run one. */
  broker?: (o: Outcome) => Record<string, number> | null;
  /**
   * What the stack or the run lacks for it (the partitions need --netns on the local stack; the pitfalls
   * one instance of each app); unset or undefined: nothing.
   */
  needs?: (s: Stack, run: { replicas: number; target: TargetKind }) => string | undefined;
}
