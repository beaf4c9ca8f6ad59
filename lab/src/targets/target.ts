// What the lab runs a scenario against: the local stack's processes (`pnpm stack up`) or the compose
// stack's containers (`pnpm compose up`). Both are read through a Stack (ports, credentials), so the load,
// the audit and the samplers are the same code; what differs is how faults are applied, how a broken
// stack is healed before a run, and whether the apps can be restarted as a variant.
import type { AppVariant, Stack } from "@orderflow/infra";
import type { FaultApplier } from "../faults/control-client.ts";

export const TARGET_KINDS = ["local", "compose"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export interface LabTarget {
  kind: TargetKind;
  /** Ports and credentials of the services, databases and broker, in the local stack's shapes. */
  stack: Stack;
  /** The fault actions of `pnpm stack chaos` and POST /faults, on this target's processes or containers. */
  faults: FaultApplier;
  /** Starts what an earlier run or an operator left down; returns what it started. */
  heal(log: (m: string) => void): Promise<string[]>;
  /**
   * Restarts the apps as `variant`, with `replicas` of each (default: as many as run), when they do not
   * run so already; true when it restarted them.
   */
  restartAppsWith(variant: AppVariant, replicas?: number): Promise<boolean>;
  /** Alertmanager, when the target runs one; without it the scenarios' alerts are not checked. */
  alertmanagerUrl: string | undefined;
}
