// How the fault lab asks the stack to run its variant processes: every service and relay runs from this
// folder's entry files, with the lab's configuration in their environment (infra's AppVariant).
import type { AppVariant } from "@orderflow/infra";
import { type LabEnv, labEnvVariables } from "./env.ts";

const LAB = "lab/src/pitfalls";

/** `env`: more environment for every app (a proxied broker URL, a job's lab time scale). */
export function labVariant(lab: Partial<LabEnv>, env: Record<string, string> = {}): AppVariant {
  return {
    env: { ...labEnvVariables(lab), ...env },
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
