// How the fault lab asks the stack to run its variant processes: every service and relay runs from this
// folder's entry files, with the lab's configuration in their environment (infra's AppVariant).
import type { AppVariant } from "@orderflow/infra";
import { type LabEnv, labEnvVariables } from "./env.ts";

const LAB = "load-tests/src/lab";

export function labVariant(lab: Partial<LabEnv>): AppVariant {
  return {
    env: labEnvVariables(lab),
    entries: {
      order: `${LAB}/order-main.ts`,
      inventory: `${LAB}/inventory-main.ts`,
      points: `${LAB}/points-main.ts`,
      "relay:order": `${LAB}/relay-main.ts`,
      "relay:inventory": `${LAB}/relay-main.ts`,
      "relay:points": `${LAB}/relay-main.ts`,
    },
  };
}
