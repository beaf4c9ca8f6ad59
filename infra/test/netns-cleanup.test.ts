// `pnpm stack up --netns` killed with SIGKILL half-way (its broker nodes booting in their namespaces),
// then `pnpm stack down`: no namespace, veth, bridge or process of that stack is left. A stack of its
// own (port offset and folder), beside the one the other tests use. Root only: namespaces need it.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { brokerNetworkLeft, repoRoot, stackLayout, waitFor } from "../src/index.ts";

const isRoot = process.getuid?.() === 0;
const stackDir = fs.mkdtempSync(path.join(os.tmpdir(), "netns-cleanup-"));
const env = { ...process.env, ORDERFLOW_PORT_OFFSET: "31000", ORDERFLOW_STACK_DIR: stackDir };
const layout = stackLayout({ stackDir, portOffset: 31_000 }, { netns: true });
const cli = path.join(repoRoot, "infra/src/cli.ts");

const stackCli = (...args: string[]) =>
  new Promise<number>((resolve) => {
    execFile(process.execPath, ["--import", "tsx", cli, ...args], { env, timeout: 180_000 }, (err) =>
      resolve(err ? Number(err.code ?? 1) : 0),
    );
  });

/** Processes whose command line names this stack's folder (its nodes, PostgreSQL, Redis...). */
function processesOfTheStack(): string[] {
  return fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        const args = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ");
        return args.includes(stackDir) ? [`${p}: ${args.slice(0, 120)}`] : [];
      } catch {
        return [];
      }
    });
}

const pidsIn = (netns: string) =>
  new Promise<number>((resolve) => {
    execFile("ip", ["netns", "pids", netns], (err, stdout) =>
      resolve(err ? 0 : stdout.split("\n").filter(Boolean).length),
    );
  });

afterAll(async () => {
  await stackCli("down");
  fs.rmSync(stackDir, { recursive: true, force: true });
}, 180_000);

test.skipIf(!isRoot)(
  "after a SIGKILL of `stack up --netns` while its nodes boot, `stack down` leaves no namespace, link or process",
  async () => {
    const up = spawn(process.execPath, ["--import", "tsx", cli, "up", "--netns", "--no-apps"], {
      env,
      stdio: "ignore",
    });
    // Killed once every node's namespace holds a process of its own (epmd, then the node).
    await waitFor(
      "a process in every broker namespace",
      async () => {
        const counts = await Promise.all(layout.rabbitmq.nodes.map((n) => pidsIn(n.netns?.name ?? "")));
        return counts.every((c) => c > 0);
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    up.kill("SIGKILL");
    await new Promise((r) => up.once("exit", r));
    expect((await brokerNetworkLeft(layout)).length).toBeGreaterThan(0);

    expect(await stackCli("down")).toBe(0);
    expect(await brokerNetworkLeft(layout)).toEqual([]);
    // Daemons the killed command had launched (a node still booting) are stopped too.
    await waitFor("no process of the stack", () => processesOfTheStack().length === 0, {
      timeoutMs: 30_000,
      intervalMs: 500,
    }).catch(() => {});
    expect(processesOfTheStack()).toEqual([]);
  },
  300_000,
);
