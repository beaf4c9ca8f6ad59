// Runs infra/rabbitmq/compose/setup.sh as the rabbitmq-setup container would, with the broker CLIs
// replaced by fixtures/compose-setup/fake-rabbitmq-cli.sh: a scenario describes the three nodes, the run
// returns what the script printed, its exit status and every CLI call it made, in order.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../src/index.ts";

export const SETUP_SCRIPT = path.join(repoRoot, "infra/rabbitmq/compose/setup.sh");
export const DEFINITIONS_FILE = path.join(repoRoot, "infra/rabbitmq/definitions.json");
const FAKE_CLI = path.join(repoRoot, "infra/test/fixtures/compose-setup/fake-rabbitmq-cli.sh");
const CLI_NAMES = ["rabbitmqctl", "rabbitmq-diagnostics", "rabbitmq-queues"];

export type BrokerNode = "rabbitmq-1" | "rabbitmq-2" | "rabbitmq-3";

export interface Scenario {
  /** The cluster each node starts in (default "main" for all three). */
  clusters?: Partial<Record<BrokerNode, string>>;
  /** Queues of vhost orderflow per cluster before the script runs (default none). */
  queues?: Record<string, number>;
  /** Global parameters per cluster, as [name, value] pairs (default none). */
  params?: Record<string, [string, string][]>;
  /** Queues an import leaves in the importing node's cluster. */
  queuesAfterImport: number;
  /** Nodes that answer no call at all. */
  down?: BrokerNode[];
  /** Calls that never return: "check_running", or "rabbitmq-3 check_running" for one node. */
  hang?: string[];
  /** setup.sh's environment on top of valid secrets and fast polling. */
  env?: Record<string, string>;
}

export interface SetupRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** One line per CLI call: `<tool> -n rabbit@<node> <arguments>`; change_password adds `<stdin: ...>`. */
  calls: string[];
  seconds: number;
  passwords: Record<"order" | "inventory" | "points", string>;
  /** How many calls hung, and which of them were still running when the script ended (then ended here). */
  hungCalls: number;
  leftRunning: number[];
}

const secret = () => randomBytes(24).toString("hex");

function writeState(dir: string, s: Scenario) {
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  for (const [node, cluster] of Object.entries(s.clusters ?? {})) write(`cluster.${node}`, `${cluster}\n`);
  for (const [cluster, n] of Object.entries(s.queues ?? {})) write(`queues.${cluster}`, `${n}\n`);
  for (const [cluster, pairs] of Object.entries(s.params ?? {}))
    write(`params.${cluster}`, pairs.map(([k, v]) => `${k}\t${v}\n`).join(""));
  write("after-import", `${s.queuesAfterImport}\n`);
  if (s.down) write("down", `${s.down.join("\n")}\n`);
  if (s.hang) write("hang", `${s.hang.join("\n")}\n`);
}

const readLines = (file: string) =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

export function runSetup(scenario: Scenario): SetupRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orderflow-setup-"));
  try {
    const bin = path.join(dir, "bin");
    const state = path.join(dir, "state");
    fs.mkdirSync(bin);
    fs.mkdirSync(state);
    for (const name of CLI_NAMES) fs.symlinkSync(FAKE_CLI, path.join(bin, name));
    writeState(state, scenario);
    const passwords = { order: secret(), inventory: secret(), points: secret() };
    const started = Date.now();
    const r = spawnSync("bash", [SETUP_SCRIPT], {
      env: {
        PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
        LANG: "C.UTF-8",
        FAKE_STATE: state,
        SETUP_DEFINITIONS: DEFINITIONS_FILE,
        SETUP_POLL_S: "0.1",
        RABBITMQ_ERLANG_COOKIE: secret(),
        ORDER_BROKER_PASSWORD: passwords.order,
        INVENTORY_BROKER_PASSWORD: passwords.inventory,
        POINTS_BROKER_PASSWORD: passwords.points,
        ...scenario.env,
      },
      encoding: "utf8",
      // A backstop only: every scenario ends by the script's own deadlines well before it.
      timeout: 60_000,
    });
    const seconds = (Date.now() - started) / 1000;
    const hung = readLines(path.join(state, "hung-pids")).map(Number);
    const leftRunning = hung.filter(alive);
    for (const pid of leftRunning) process.kill(pid, "SIGKILL");
    return {
      status: r.status,
      stdout: r.stdout,
      stderr: r.stderr,
      calls: readLines(path.join(state, "calls.log")),
      seconds,
      passwords,
      hungCalls: hung.length,
      leftRunning,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The calls of one tool and command, e.g. callsOf(run, "rabbitmqctl", "stop_app"). */
export const callsOf = (run: SetupRun, tool: string, command: string) =>
  run.calls.filter((c) => c.startsWith(`${tool} `) && c.split(" ")[3] === command);

/** The position of the first call that starts with `prefix`, -1 when there is none. */
export const indexOfCall = (run: SetupRun, prefix: string) =>
  run.calls.findIndex((c) => c.startsWith(prefix));
