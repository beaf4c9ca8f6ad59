// The local stack as a lab target: faults through the same controller as `pnpm stack chaos`.
import { alertmanagerUrl, healInfrastructure, restartAppsWith, type Stack } from "@orderflow/infra";
import { createFaultController } from "../faults/book.ts";
import type { LabTarget } from "./target.ts";

export function localTarget(stack: Stack): LabTarget {
  const faults = createFaultController(stack);
  return {
    kind: "local",
    stack,
    faults,
    heal: (log) => healInfrastructure(stack, log),
    restartAppsWith: (variant, replicas) => restartAppsWith(stack, variant, replicas),
    alertmanagerUrl: alertmanagerUrl(stack),
  };
}
