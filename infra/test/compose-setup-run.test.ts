// setup.sh executed against fake broker CLIs (compose-setup-fakes.ts): how it forms one cluster, when it
// refuses to, how it keeps every wait and call bounded, and when it imports the definitions.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import {
  callsOf,
  DEFINITIONS_FILE,
  indexOfCall,
  runSetup,
  type Scenario,
  type SetupRun,
} from "./compose-setup-fakes.ts";

const definitionsText = fs.readFileSync(DEFINITIONS_FILE, "utf8");
const QUEUES = (JSON.parse(definitionsText) as { queues: unknown[] }).queues.length;
const SHA = createHash("sha256").update(definitionsText).digest("hex");
const MARKER = "orderflow_definitions_sha256";
const SEED = "rabbit@rabbitmq-1";
const FAST = { SETUP_JOIN_WAIT_S: "1", SETUP_QUEUE_WAIT_S: "1" };

const run = (s: Partial<Scenario> = {}) =>
  runSetup({ queuesAfterImport: QUEUES, ...s, env: { ...FAST, ...s.env } });

/** The calls that change a cluster's membership. */
const membershipCalls = (r: SetupRun) =>
  r.calls.filter((c) => / (stop_app|reset|join_cluster|start_app)\b/.test(c));

function expectEveryCallBounded(r: SetupRun) {
  expect(r.calls.length).toBeGreaterThan(0);
  expect(r.calls.filter((c) => c.startsWith("UNBOUNDED "))).toEqual([]);
}

function expectPasswordsSetOnStdin(r: SetupRun) {
  const set = callsOf(r, "rabbitmqctl", "change_password");
  expect(set).toEqual(
    (["order", "inventory", "points"] as const).map(
      (svc) => `rabbitmqctl -n ${SEED} change_password ${svc}-svc <stdin: ${r.passwords[svc]}>`,
    ),
  );
  const argvOnly = r.calls.map((c) => c.replace(/ <stdin: .*>$/, "")).join("\n");
  for (const pw of Object.values(r.passwords)) expect(argvOnly).not.toContain(pw);
}

describe("setup.sh with three nodes already in one cluster", () => {
  test("imports the definitions once, sets the three passwords on stdin, records the import, rebalances", () => {
    const r = run();
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expectEveryCallBounded(r);
    expect(membershipCalls(r)).toEqual([]);
    expect(callsOf(r, "rabbitmqctl", "import_definitions")).toEqual([
      `rabbitmqctl -n ${SEED} import_definitions ${DEFINITIONS_FILE}`,
    ]);
    expectPasswordsSetOnStdin(r);
    expect(callsOf(r, "rabbitmqctl", "set_global_parameter")).toEqual([
      `rabbitmqctl -n ${SEED} set_global_parameter ${MARKER} "${SHA}"`,
    ]);
    const order = [
      `rabbitmqctl -n ${SEED} await_online_nodes 3`,
      `rabbitmqctl -n ${SEED} import_definitions`,
      `rabbitmqctl -n ${SEED} change_password`,
      `rabbitmqctl -n ${SEED} set_global_parameter`,
      `rabbitmq-queues -n ${SEED} rebalance quorum`,
    ].map((p) => indexOfCall(r, p));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(r.calls.at(-1)).toBe(`rabbitmq-queues -n ${SEED} rebalance quorum`);
    expect(r.stdout).toContain("3 nodes running in the cluster of rabbit@rabbitmq-1");
  });

  test("a run after an import of the same file imports nothing, and still sets the passwords", () => {
    const r = run({ queues: { main: QUEUES }, params: { main: [[MARKER, `"${SHA}"`]] } });
    expect(r.status).toBe(0);
    expectEveryCallBounded(r);
    expect(callsOf(r, "rabbitmqctl", "import_definitions")).toEqual([]);
    expect(callsOf(r, "rabbitmqctl", "set_global_parameter")).toEqual([]);
    expectPasswordsSetOnStdin(r);
    expect(r.stdout).toContain(`its ${QUEUES} queues exist: not imported again`);
    expect(r.calls.at(-1)).toBe(`rabbitmq-queues -n ${SEED} rebalance quorum`);
  });

  test.each([
    ["the file changed since the recorded import", { main: QUEUES }, `"${"0".repeat(64)}"`],
    ["a queue of the recorded import is gone", { main: QUEUES - 1 }, `"${SHA}"`],
  ])("it imports again when %s", (_why, queues, recorded) => {
    const r = run({ queues, params: { main: [[MARKER, recorded]] } });
    expect(r.status).toBe(0);
    expect(callsOf(r, "rabbitmqctl", "import_definitions")).toHaveLength(1);
    expect(callsOf(r, "rabbitmqctl", "set_global_parameter")).toEqual([
      `rabbitmqctl -n ${SEED} set_global_parameter ${MARKER} "${SHA}"`,
    ]);
  });

  test("the queue count comes from the file: one queue short after the import is an error, not success", () => {
    const r = run({ queuesAfterImport: QUEUES - 1 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`only ${QUEUES - 1} of ${QUEUES} queues exist 1 s after the import of`);
    // Not recorded, so the next run imports again.
    expect(callsOf(r, "rabbitmqctl", "set_global_parameter")).toEqual([]);
    expect(callsOf(r, "rabbitmq-queues", "rebalance")).toEqual([]);
  });

  test("the count does not depend on the file's layout: a minified copy gives the same number", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orderflow-defs-"));
    try {
      const minified = path.join(dir, "definitions.json");
      fs.writeFileSync(minified, JSON.stringify(JSON.parse(definitionsText)));
      expect(run({ env: { SETUP_DEFINITIONS: minified } }).status).toBe(0);
      const short = run({ queuesAfterImport: QUEUES - 1, env: { SETUP_DEFINITIONS: minified } });
      expect(short.stderr).toContain(`of ${QUEUES} queues exist`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("setup.sh with a node that formed a cluster of its own", () => {
  test("without queues there: stop_app, reset, join_cluster rabbit@rabbitmq-1, start_app, then the import", () => {
    const r = run({ clusters: { "rabbitmq-3": "stray" } });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expectEveryCallBounded(r);
    expect(membershipCalls(r)).toEqual([
      "rabbitmqctl -n rabbit@rabbitmq-3 stop_app",
      "rabbitmqctl -n rabbit@rabbitmq-3 reset",
      `rabbitmqctl -n rabbit@rabbitmq-3 join_cluster ${SEED}`,
      "rabbitmqctl -n rabbit@rabbitmq-3 start_app",
    ]);
    const checkedEmpty = indexOfCall(r, "rabbitmqctl -n rabbit@rabbitmq-3 list_queues -p orderflow name");
    const stopped = indexOfCall(r, "rabbitmqctl -n rabbit@rabbitmq-3 stop_app");
    const started = indexOfCall(r, "rabbitmqctl -n rabbit@rabbitmq-3 start_app");
    const imported = indexOfCall(r, `rabbitmqctl -n ${SEED} import_definitions`);
    expect(checkedEmpty).toBeGreaterThanOrEqual(0);
    expect(checkedEmpty).toBeLessThan(stopped);
    expect(started).toBeLessThan(indexOfCall(r, `rabbitmqctl -n ${SEED} await_online_nodes 3`));
    expect(started).toBeLessThan(imported);
    expect(r.stdout).toContain("rabbit@rabbitmq-3 formed a cluster of its own");
    expectPasswordsSetOnStdin(r);
  });

  test("holding queues of vhost orderflow: exit 1 naming the node and why, nothing reset or imported", () => {
    const r = run({ clusters: { "rabbitmq-2": "stray" }, queues: { stray: 4 } });
    expect(r.status).toBe(1);
    expectEveryCallBounded(r);
    expect(r.stderr).toContain(
      `rabbit@rabbitmq-2 is in a cluster apart from ${SEED} that holds 4 queues of vhost orderflow;`,
    );
    expect(r.stderr).toContain("resetting it would delete them");
    expect(membershipCalls(r)).toEqual([]);
    expect(callsOf(r, "rabbitmqctl", "import_definitions")).toEqual([]);
    expect(callsOf(r, "rabbitmqctl", "change_password")).toEqual([]);
  });
});

describe("setup.sh keeps its deadlines", () => {
  test("a node whose check never returns: exit 1 naming it once its deadline has passed, the call ended", () => {
    const r = run({
      hang: ["rabbitmq-3 check_running"],
      env: { SETUP_NODE_WAIT_S: "2", SETUP_CALL_TIMEOUT_S: "1" },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      "rabbit@rabbitmq-3 is not running after 2 s; see docker compose logs rabbitmq-3",
    );
    // The deadline, plus at most one call's timeout and some slack for a loaded machine.
    expect(r.seconds).toBeGreaterThanOrEqual(2);
    expect(r.seconds).toBeLessThan(2 + 1 + 3);
    expect(r.hungCalls).toBeGreaterThanOrEqual(2);
    expect(r.leftRunning).toEqual([]);
    expectEveryCallBounded(r);
    expect(membershipCalls(r)).toEqual([]);
    expect(callsOf(r, "rabbitmqctl", "import_definitions")).toEqual([]);
  });

  test("a join_cluster that hangs (the CLI has no timeout for it) is ended and reported", () => {
    const r = run({
      clusters: { "rabbitmq-3": "stray" },
      hang: ["rabbitmq-3 join_cluster"],
      env: { SETUP_CALL_TIMEOUT_S: "1" },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`rabbit@rabbitmq-3 could not join ${SEED}`);
    expect(r.hungCalls).toBe(1);
    expect(r.leftRunning).toEqual([]);
    expect(r.seconds).toBeLessThan(1 + 1 + 3);
    expect(callsOf(r, "rabbitmqctl", "start_app")).toEqual([]);
    expect(callsOf(r, "rabbitmqctl", "import_definitions")).toEqual([]);
  });

  test("a node that never answers: exit 1 naming it after its deadline, before any change", () => {
    const r = run({ down: ["rabbitmq-2"], env: { SETUP_NODE_WAIT_S: "1" } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("rabbit@rabbitmq-2 is not running after 1 s");
    expect(r.seconds).toBeGreaterThanOrEqual(1);
    expect(r.seconds).toBeLessThan(1 + 3);
    expect(callsOf(r, "rabbitmq-diagnostics", "check_running").length).toBeGreaterThan(2);
    expect(membershipCalls(r)).toEqual([]);
    expect(callsOf(r, "rabbitmqctl", "import_definitions")).toEqual([]);
  });

  test.each([
    [
      "SETUP_NODE_WAIT_S",
      "abc",
      'SETUP_NODE_WAIT_S must be a whole number of seconds from 1 to 99999, not "abc"',
    ],
    [
      "SETUP_CALL_TIMEOUT_S",
      "0",
      'SETUP_CALL_TIMEOUT_S must be a whole number of seconds from 1 to 99999, not "0"',
    ],
    ["SETUP_POLL_S", "-1", 'SETUP_POLL_S must be a number of seconds above 0 and below 1000, not "-1"'],
    ["SETUP_DEFINITIONS", "/nonexistent/definitions.json", "cannot read the definitions file /nonexistent/"],
  ])("a bad %s is refused, naming it, before any broker call", (name, value, message) => {
    const r = run({ env: { [name]: value } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.calls).toEqual([]);
  });
});
