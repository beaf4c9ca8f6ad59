// Every integration test runs against the stack that `pnpm stack up` started; fail early and clearly if not.
import { appsStatus } from "../src/apps/control.ts";
import { openStack, type Stack, stackStatus, startApplication, stopApplication } from "../src/index.ts";

export async function requireHealthyStack(): Promise<Stack> {
  const s = openStack(undefined, false);
  const status = await stackStatus(s);
  if (!status.healthy)
    throw new Error(`the local stack is not healthy (run \`pnpm stack up\`): ${status.problems.join("; ")}`);
  return s;
}

/**
 * Stops a service while a test uses its work queue directly (the service would consume the test's
 * messages); returns the function that lets it run again. A no-op when the services are not running.
 */
export async function pauseService(
  s: Stack,
  name: "order" | "inventory" | "points",
): Promise<() => Promise<void>> {
  const running = (await appsStatus(s)).some((a) => a.name === name && a.pid !== null);
  if (!running) return async () => {};
  await stopApplication(name, s);
  return async () => {
    await startApplication(name, s);
  };
}
