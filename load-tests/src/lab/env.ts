// The only reader of the environment in the lab's variant processes (*-main.ts in this folder): which
// pitfall they run with, and the share of order transactions they roll back. The fault lab sets both
// (load-tests/src/fault); they are not in .env.example because no deployment ever sets them.
import { isLabPitfall, LAB_PITFALLS, type LabPitfall } from "./pitfalls.ts";

export interface LabEnv {
  pitfall: LabPitfall | undefined;
  /** Share of order transactions rolled back after their work (0..1). */
  rollbackRate: number;
}

export function readLabEnv(raw: Record<string, string | undefined> = process.env): LabEnv {
  const pitfall = raw.ORDERFLOW_LAB_PITFALL || undefined;
  if (pitfall !== undefined && !isLabPitfall(pitfall))
    throw new Error(`ORDERFLOW_LAB_PITFALL must be one of ${LAB_PITFALLS.join(", ")}, got "${pitfall}"`);
  const rate = Number(raw.ORDERFLOW_LAB_ROLLBACK_RATE || "0");
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new Error(
      `ORDERFLOW_LAB_ROLLBACK_RATE must be between 0 and 1, got "${raw.ORDERFLOW_LAB_ROLLBACK_RATE}"`,
    );
  return { pitfall, rollbackRate: rate };
}

/** The variables that carry a lab configuration to the variant processes. */
export function labEnvVariables(lab: Partial<LabEnv>): Record<string, string> {
  return {
    ...(lab.pitfall ? { ORDERFLOW_LAB_PITFALL: lab.pitfall } : {}),
    ...(lab.rollbackRate ? { ORDERFLOW_LAB_ROLLBACK_RATE: String(lab.rollbackRate) } : {}),
  };
}
