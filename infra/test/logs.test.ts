// `pnpm stack logs` shows the services' and relays' logs beside the infrastructure's, and -f follows them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type CliProcess, runCli } from "@orderflow/testkit/cli-process.ts";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterEach, expect, test } from "vitest";
import { appLogFile } from "../src/apps/state.ts";
import { stackLayout } from "../src/index.ts";
import { waitFor } from "../src/proc.ts";

const running: CliProcess[] = [];
const tempDirs: string[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill("SIGKILL");
    await p.exited;
  }
  for (const d of tempDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function logs(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  const p = runCli("infra/src/cli.ts", ["logs", ...args], env);
  return { code: await p.exited, out: p.output() };
}

/** The last line of `file` that contains `marker`: a line the service or relay itself wrote. */
function lastLineWith(file: string, marker: string): string {
  const line = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .findLast((l) => l.includes(marker));
  if (!line) throw new Error(`${file} has no line with ${marker}: did the stack start its apps?`);
  return line;
}

test("stack logs <service> and stack logs relay:<service> print what the service and its relay wrote", async () => {
  const s = await requireHealthyStack();
  const serviceLine = lastLineWith(appLogFile(s.layout, "order"), '"event":"service.listening"');
  const relayLine = lastLineWith(appLogFile(s.layout, "relay:order"), '"event":"relay.started"');

  const service = await logs(["order", "-n", "100000"]);
  expect(service.code).toBe(0);
  expect(service.out).toContain(`==> order (${appLogFile(s.layout, "order")}) <==`);
  expect(service.out).toContain(serviceLine);
  const relay = await logs(["relay:order", "-n", "100000"]);
  expect(relay.code).toBe(0);
  expect(relay.out).toContain(relayLine);
  expect(relay.out).not.toContain(serviceLine);

  const all = await logs([]);
  for (const part of ["postgres", "rabbit-1", "supervisor", "points", "relay:inventory"])
    expect(all.out).toContain(`==> ${part} (`);
});

test("stack logs -f prints complete lines as they are appended, under the header of their file", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-logs-"));
  tempDirs.push(dir);
  const layout = stackLayout({ stackDir: dir, portOffset: 0 });
  const orderLog = appLogFile(layout, "order");
  const relayLog = appLogFile(layout, "relay:order");
  fs.mkdirSync(path.dirname(orderLog), { recursive: true });
  fs.writeFileSync(orderLog, "old order line\nlast order line before\n");

  const p = runCli("infra/src/cli.ts", ["logs", "-f", "-n", "1"], { ORDERFLOW_STACK_DIR: dir });
  running.push(p);
  const seen = (text: string) =>
    waitFor(`"${text}" in the output of stack logs -f`, () => p.output().includes(text), {
      timeoutMs: 20_000,
    });
  await seen("last order line before");
  expect(p.output()).not.toContain("old order line");

  fs.writeFileSync(relayLog, "relay line 1\n"); // a file that did not exist when following began
  await seen(`==> relay:order (${relayLog}) <==\nrelay line 1\n`);
  fs.appendFileSync(orderLog, "half a li");
  fs.appendFileSync(relayLog, "relay line 2\n");
  await seen("relay line 2\n");
  expect(p.output()).not.toContain("half a li");
  fs.appendFileSync(orderLog, "ne, then the rest\n");
  await seen(`==> order (${orderLog}) <==\nhalf a line, then the rest\n`);

  p.child.kill("SIGINT");
  expect(await p.exited).toBe(0);
});
