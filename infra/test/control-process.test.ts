// The control service runs beside the stack under a keeper of its own: `stack status` shows where it is
// and its token, it answers its readiness check, a control service killed by hand comes back, and one
// stopped with its keeper is started again by the heal the fault lab and the test setup run.

import { runCli } from "@orderflow/testkit/cli-process.ts";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { beforeAll, expect, test } from "vitest";
import { controlKeeperPid, controlPid, startControl, stopControl } from "../src/control-process.ts";
import { healInfrastructure, type Stack, stackStatus } from "../src/index.ts";
import { signal, waitFor } from "../src/proc.ts";

let s: Stack;
beforeAll(async () => {
  s = await requireHealthyStack();
  await startControl(s); // `stack up` started it; this only waits for it
}, 120_000);

test("stack status --json gives the control service's URL, token and PID, and it answers /health/ready", async () => {
  const cli = runCli("infra/src/cli.ts", ["status", "--json"]);
  await cli.exited;
  const { control } = JSON.parse(cli.output()) as { control: Record<string, unknown> };
  expect(control).toEqual({
    url: `http://127.0.0.1:${s.layout.control.port}`,
    token: s.secrets.controlToken,
    healthy: true,
    pid: controlPid(s.layout),
  });
  expect(String(control.token).length).toBeGreaterThanOrEqual(16);
  const ready = await fetch(`${control.url}/health/ready`, { signal: AbortSignal.timeout(5_000) });
  expect(ready.status).toBe(200);
});

test("a control service killed by hand is restarted by its keeper, and stack status reports the new one", async () => {
  const before = controlPid(s.layout);
  expect(before).toBeDefined();
  expect(signal(before, "SIGKILL")).toBe(true);
  const after = await waitFor(
    "the keeper to restart the control service",
    async () => {
      const c = (await stackStatus(s)).control;
      return c.healthy && c.pid !== before ? c : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  expect(after.pid).toBe(controlPid(s.layout));
  const cli = runCli("infra/src/cli.ts", ["status"]);
  await cli.exited;
  expect(cli.output()).toMatch(new RegExp(`control\\s+up\\s+${after.url}\\s+pid ${after.pid}`));
}, 90_000);

test("stopped with its keeper (as `stack down` does), the control service is started again by the heal", async () => {
  await stopControl(s.layout);
  expect(controlKeeperPid(s.layout)).toBeUndefined();
  expect(controlPid(s.layout)).toBeUndefined();
  expect((await stackStatus(s)).problems).toContain("control: not running");

  expect(await healInfrastructure(s)).toEqual(["control"]);
  expect((await stackStatus(s)).control).toMatchObject({ healthy: true, pid: controlPid(s.layout) });
  expect(controlKeeperPid(s.layout)).toBeDefined();
}, 180_000);
