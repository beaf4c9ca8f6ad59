// `pnpm dev <service>` runs the service from source in the place of the stack's copy, and gives the
// stack its copy back when it ends; it refuses at once when there is nothing to run against.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type CliProcess, runCli } from "@orderflow/testkit/cli-process.ts";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readHeld } from "../src/apps/state.ts";
import { appsStatus, type Stack, startApplication, stopApplication } from "../src/index.ts";
import { waitFor } from "../src/proc.ts";

describe("pnpm dev refuses bad input", () => {
  test("an unknown service: exit 2 naming the services there are", async () => {
    const p = runCli("infra/src/dev.ts", ["orders"]);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('unknown service "orders"; services: order, inventory, points');
    expect(p.output()).toContain("usage: pnpm dev <service>");
  });

  test("no service: exit 2 with the usage", async () => {
    const p = runCli("infra/src/dev.ts", []);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain("pnpm dev needs a <service>");
  });

  test("no local stack: exit 1 saying to run pnpm stack up first", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "no-stack-"));
    try {
      const p = runCli("infra/src/dev.ts", ["order"], { ORDERFLOW_STACK_DIR: dir });
      expect(await p.exited).toBe(1);
      expect(p.output()).toContain(`no local stack at ${dir}: run \`pnpm stack up\` first`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("pnpm dev order against the local stack", () => {
  let s: Stack;
  let url: string;
  let heldBefore: boolean;
  let dev: CliProcess | undefined;

  const order = async () => (await appsStatus(s)).find((a) => a.name === "order");
  const ready = async () => {
    try {
      return (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) })).ok;
    } catch {
      return false;
    }
  };
  /** Ctrl-C as a terminal sends it, then the exit code. */
  const interrupt = async (p: CliProcess) => {
    p.child.kill("SIGINT");
    return p.exited;
  };

  beforeAll(async () => {
    s = await requireHealthyStack();
    const st = await order();
    if (!st?.url) throw new Error("the stack runs no supervised order service (started with --no-apps?)");
    url = st.url;
    heldBefore = readHeld(s.layout).includes("order");
  });
  afterAll(async () => {
    if (dev && dev.child.exitCode === null) await interrupt(dev);
    // Leave order as this file found it (component tests run with every app held).
    if (heldBefore && !readHeld(s.layout).includes("order")) await stopApplication("order", s);
    if (!heldBefore && readHeld(s.layout).includes("order")) await startApplication("order", s);
  });

  test("stops the stack's copy, serves the service's URL from source, and starts the copy again on Ctrl-C", async () => {
    if (readHeld(s.layout).includes("order")) await startApplication("order", s);
    const stackPid = (await order())?.pid;
    expect(stackPid).toBeTypeOf("number");

    dev = runCli("infra/src/dev.ts", ["order"]);
    await waitFor(
      "the stack's order stopped and order from source ready at its URL",
      async () => (await order())?.pid === null && (await ready()),
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(readHeld(s.layout)).toContain("order");
    expect(dev.output()).toContain(`"url":"${url}","event":"service.listening"`);

    expect(await interrupt(dev)).toBe(0);
    const after = await order();
    expect(after?.healthy).toBe(true);
    expect(after?.pid).not.toBe(stackPid);
    expect(readHeld(s.layout)).not.toContain("order");
    expect(dev.output()).toContain("[dev] the stack's order is running");
  });

  test("leaves the stack's copy stopped when it was stopped before, and frees the port", async () => {
    if (!readHeld(s.layout).includes("order")) await stopApplication("order", s);

    dev = runCli("infra/src/dev.ts", ["order"]);
    await waitFor("order from source ready", ready, { timeoutMs: 90_000, intervalMs: 500 });
    expect(dev.output()).toContain(`"url":"${url}","event":"service.listening"`);
    expect(dev.output()).not.toContain("stopping the stack's order");

    expect(await interrupt(dev)).toBe(0);
    expect(await ready()).toBe(false);
    expect((await order())?.pid).toBeNull();
    expect(readHeld(s.layout)).toContain("order");
  });
});
