// The compose stack as a lab target: faults through the control service's POST /faults (its Docker
// backend acts on the containers), reads through the ports docker-compose.yml publishes. The images are
// the deployed ones, so a scenario that needs the apps restarted as a variant (the pitfalls) cannot run.
import { type AppVariant, openComposeStack } from "@orderflow/infra";
import { controlFaultClient } from "../faults/control-client.ts";
import type { LabTarget } from "./target.ts";

export class TargetUnsupportedError extends Error {}

export async function composeTarget(log: (m: string) => void = () => {}): Promise<LabTarget> {
  const view = await openComposeStack(log);
  const health = await fetch(`${view.control.url}/health/live`, { signal: AbortSignal.timeout(5_000) }).catch(
    (e: unknown) => e as Error,
  );
  if (health instanceof Error || !health.ok)
    throw new Error(
      `the compose stack's control service does not answer at ${view.control.url} (pnpm compose up; pnpm compose status)`,
    );
  return {
    kind: "compose",
    stack: view.stack,
    faults: controlFaultClient(view.control.url, view.control.token),
    heal: (l) => view.heal(l),
    restartAppsWith: async (variant: AppVariant, replicas?: number) => {
      if (replicas !== undefined && replicas !== 1)
        throw new Error(
          "--replicas scales the local stack; scale compose's apps with `docker compose up --scale order=N`",
        );
      if (Object.keys(variant).length > 0)
        throw new TargetUnsupportedError(
          "this scenario restarts the apps as a variant of their own code, which only the local stack can do (pnpm stack up)",
        );
      return false;
    },
    alertmanagerUrl: view.alertmanagerUrl,
  };
}
