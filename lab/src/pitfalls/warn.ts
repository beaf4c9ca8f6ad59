import type { Logger } from "@orderflow/logging";
import type { LabEnv } from "./env.ts";

/** Every variant process says, first thing, which protection it runs without. */
export function warnLabOn(log: Logger, lab: LabEnv): void {
  if (lab.pitfall || lab.rollbackRate > 0 || lab.failShare > 0)
    log.warn(
      { pitfall: lab.pitfall ?? null, rollbackRate: lab.rollbackRate, failShare: lab.failShare },
      "FAULT LAB: a protection is off on purpose; never run this in production",
    );
}
