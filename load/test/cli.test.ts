import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { EXIT, main } from "../src/cli-commands.ts";
import { readLoadEnv } from "../src/env.ts";
import { type LedgerEntry, readJsonl } from "../src/ledger.ts";
import type { RunResult } from "../src/result.ts";
import { loadScenario } from "../src/scenario-file.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "loadgen-cli-"));
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function cli(argv: string[]) {
  const lines: string[] = [];
  const done = main(argv, { log: (l) => lines.push(l), env: { ...readLoadEnv(), reportsDir: tmp } });
  return done.then((code) => ({ code, lines }));
}

function writeConfig(file: string, config: object): string {
  const p = path.join(tmp, file);
  fs.writeFileSync(p, JSON.stringify(config));
  return p;
}

describe("the CLI", () => {
  it("runs a JSON scenario, prints progress each second, writes the run, report and ledger, exits 0", async () => {
    // Every 4th order is refused, so the ledger must hold only the others.
    server = await startTestServer((req, n) =>
      n % 4 === 3
        ? { status: 422, body: {} }
        : { status: 201, body: { orderId: req.headers["idempotency-key"] } },
    );
    const config = writeConfig("orders.json", {
      target: server.url,
      scenario: { executor: "constant-arrival-rate", rate: 40, duration: "2s", preAllocatedVUs: 80 },
      thresholds: { http_req_duration: ["p(99)<2000"], dropped_iterations: ["count<10"] },
      request: {
        method: "POST",
        path: "/orders",
        headers: { "Idempotency-Key": "{{uuid}}" },
        body: { n: "{{iteration}}" },
      },
      ledger: true,
    });
    const { code, lines } = await cli(["run", "--config", config, "--out", path.join(tmp, "out")]);
    expect(code).toBe(EXIT.ok);
    expect(lines.filter((l) => /^\[\s*\d+s\]/.test(l)).length).toBeGreaterThanOrEqual(1);
    expect(lines.find((l) => l.startsWith("[   1s]"))).toMatch(/offered\s+40\/s/);

    const run = JSON.parse(fs.readFileSync(path.join(tmp, "out", "orders.json"), "utf8")) as RunResult;
    expect(run.summary.iterations.offered).toBe(80);
    expect(fs.readFileSync(path.join(tmp, "out", "orders.html"), "utf8")).toContain("<svg");
    const ledger = readJsonl<LedgerEntry>(path.join(tmp, "out", "orders.ledger.jsonl"));
    expect(ledger).toHaveLength(run.summary.status["2xx"]);
    // Every answer the server gave is counted; a rare drop on a cold start is not an answer.
    expect(run.summary.status["4xx"]).toBe(Math.floor((server?.received ?? 0) / 4));
    expect(run.summary.status["2xx"] + run.summary.status["4xx"]).toBe(server?.received);
    for (const e of ledger) expect(e.body).toEqual({ orderId: e.key });
  });

  it("exits 99 when a threshold fails and 104 when the config is invalid, like k6", async () => {
    server = await startTestServer(() => ({ status: 500, body: {} }));
    const failing = writeConfig("failing.json", {
      target: server.url,
      scenario: { executor: "constant-vus", vus: 2, duration: "500ms" },
      thresholds: { http_req_failed: ["rate<0.01"] },
      request: { path: "/" },
    });
    const failed = await cli(["run", "--config", failing, "--out", tmp]);
    expect(failed.code).toBe(EXIT.thresholdsFailed);
    expect(failed.lines).toContain("THRESHOLDS FAILED");

    const invalid = writeConfig("invalid.json", {
      target: server.url,
      scenario: { executor: "constant-vus", vus: 2, duration: "1 minute" },
      request: { path: "/" },
    });
    const bad = await cli(["run", "--config", invalid]);
    expect(bad.code).toBe(EXIT.invalidConfig);
    expect(bad.lines.join("\n")).toMatch(/not a k6 duration/);
    expect((await cli(["run", "--config", path.join(tmp, "missing.json")])).code).toBe(EXIT.invalidConfig);
    expect((await cli(["launch"])).code).toBe(EXIT.invalidConfig);
  });

  it("renders a report and a summary from run files, picking up audit and series files beside them", async () => {
    server = await startTestServer();
    const config = writeConfig("tiny.json", {
      target: server.url,
      scenario: { executor: "constant-arrival-rate", rate: 20, duration: "1s", preAllocatedVUs: 5 },
      request: { path: "/" },
    });
    const out = path.join(tmp, "runs");
    expect((await cli(["run", "--config", config, "--out", out])).code).toBe(EXIT.ok);
    fs.writeFileSync(
      path.join(out, "tiny.audit.json"),
      JSON.stringify({ passed: true, duplicateRate: 0.01 }),
    );
    const report = await cli([
      "report",
      "--run",
      path.join(out, "tiny.json"),
      "--out",
      path.join(out, "again.html"),
    ]);
    expect(report.code).toBe(EXIT.ok);
    expect(fs.readFileSync(path.join(out, "again.html"), "utf8")).toContain("duplicateRate");

    const summary = await cli(["summary", "--out", path.join(tmp, "summary"), path.join(out, "tiny.json")]);
    expect(summary.code).toBe(EXIT.ok);
    expect(summary.lines.join("\n")).toContain("| tiny | pass | pass |");
    expect(fs.readFileSync(path.join(tmp, "summary", "summary.html"), "utf8")).toContain(
      'href="../runs/tiny.html"',
    );
  });

  it("loads a TypeScript scenario module with a request function", async () => {
    const s = await loadScenario(path.join(import.meta.dirname, "fixtures", "orders-scenario.ts"));
    expect(s.name).toBe("orders-module");
    expect(s.ledger).toBe(true);
    const a = s.request({ iteration: 0, intendedMs: 0 });
    const b = s.request({ iteration: 1, intendedMs: 10 });
    expect(a.method).toBe("POST");
    expect(a.headers?.["Idempotency-Key"]).not.toBe(b.headers?.["Idempotency-Key"]);
  });
});
