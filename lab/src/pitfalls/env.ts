// The only reader of the environment in the lab's variant processes (*-main.ts in this folder): which
// pitfall they run with, and the experiments' triggers (rolled-back orders, failing deliveries). The
// fault lab sets them (lab/src/run); they are not in .env.example because no deployment ever sets them.
import { int, num, oneOf, type RawEnv, readEnv } from "@orderflow/config";
import { LAB_PITFALLS, type LabPitfall } from "./pitfalls.ts";

export interface LabEnv {
  pitfall: LabPitfall | undefined;
  /** Share of order transactions rolled back after their work (0..1). */
  rollbackRate: number;
  /** Share of order.created deliveries that fail for good at inventory on their first arrival (0..1). */
  failShare: number;
  /** Every Nth message of each stock stream fails its first application at the order service (0: none). */
  streamFailEvery: number;
}

export function readLabEnv(raw: RawEnv = process.env): LabEnv {
  return readEnv(
    {
      pitfall: oneOf("ORDERFLOW_LAB_PITFALL", LAB_PITFALLS),
      rollbackRate: num("ORDERFLOW_LAB_ROLLBACK_RATE", { min: 0, max: 1 }).default(0),
      failShare: num("ORDERFLOW_LAB_FAIL_SHARE", { min: 0, max: 1 }).default(0),
      streamFailEvery: int("ORDERFLOW_LAB_STREAM_FAIL_EVERY", { min: 0, max: 1_000 }).default(0),
    },
    raw,
  );
}

/** The variables that carry a lab configuration to the variant processes. */
export function labEnvVariables(lab: Partial<LabEnv>): Record<string, string> {
  return {
    ...(lab.pitfall ? { ORDERFLOW_LAB_PITFALL: lab.pitfall } : {}),
    ...(lab.rollbackRate ? { ORDERFLOW_LAB_ROLLBACK_RATE: String(lab.rollbackRate) } : {}),
    ...(lab.failShare ? { ORDERFLOW_LAB_FAIL_SHARE: String(lab.failShare) } : {}),
    ...(lab.streamFailEvery ? { ORDERFLOW_LAB_STREAM_FAIL_EVERY: String(lab.streamFailEvery) } : {}),
  };
}
