// infra/rabbitmq/compose/setup.sh read as text: what holds on every path, including the ones the runs
// against fake CLIs (compose-setup-run.test.ts) do not take.
import { spawnSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { readRepoFile } from "./compose-file.ts";
import { SETUP_SCRIPT } from "./compose-setup-fakes.ts";

const script = readRepoFile("infra/rabbitmq/compose/setup.sh");
/** The script's commands: continuation lines joined, comments and blank lines dropped. */
const code = script
  .replace(/\\\n\s*/g, " ")
  .split("\n")
  .filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"))
  .map((l) => l.replace(/\s+#\s.*$/, ""));

describe("setup.sh as a script", () => {
  test("it is valid bash and stops at the first failing command", () => {
    const r = spawnSync("bash", ["-n", SETUP_SCRIPT], { encoding: "utf8" });
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(script).toMatch(/^set -euo pipefail$/m);
  });

  test("every call of a broker CLI runs under coreutils timeout, as many have no timeout of their own", () => {
    const cli = /(^|[\s;|&(])(rabbitmqctl|rabbitmq-diagnostics|rabbitmq-queues)\b/g;
    const calls = code.flatMap((line) =>
      [...line.matchAll(cli)].map((m) => ({
        line,
        before: line.slice(0, (m.index ?? 0) + (m[1] ?? "").length),
      })),
    );
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (const { line, before } of calls)
      expect(before, line).toMatch(/(\bbounded|\btimeout(\s+-\S+)*\s+\S+)\s+$/);
    expect(script).toMatch(/^bounded\(\) \{ timeout --kill-after=\d+ "\$CALL_TIMEOUT_S" "\$@"; \}$/m);
  });

  test("the production deadlines are the documented ones, and a test may only shorten them by env", () => {
    const defaults = Object.fromEntries(
      [...script.matchAll(/^(\w+)="\$\{(SETUP_\w+):-([^}]+)\}"/gm)].map((m) => [m[2], m[3]]),
    );
    expect(defaults).toEqual({
      SETUP_DEFINITIONS: "/etc/orderflow/definitions.json",
      SETUP_NODE_WAIT_S: "120",
      SETUP_JOIN_WAIT_S: "60",
      SETUP_CLUSTER_WAIT_S: "120",
      SETUP_QUEUE_WAIT_S: "60",
      SETUP_CALL_TIMEOUT_S: "60",
      SETUP_POLL_S: "2",
    });
  });

  test("its one polling loop gives up at its deadline", () => {
    expect(code.filter((l) => /\b(until|while)\b/.test(l))).toEqual(['  until "$@" >/dev/null 2>&1; do']);
    expect(script).toMatch(/until "\$@" >\/dev\/null 2>&1; do\n\s+\(\(\$\(now_us\) < end\)\) \|\| return 1/);
    expect(script).toMatch(/await_online_nodes 3 --timeout "\$CLUSTER_WAIT_S"/);
  });
});
