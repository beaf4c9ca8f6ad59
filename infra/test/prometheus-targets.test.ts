// After `pnpm stack up`, the stack's Prometheus scrapes every part of it (services, relays, broker nodes,
// the PostgreSQL and Redis exporters, itself and Alertmanager), the exporters see their servers, and a
// Prometheus that died is a problem in `stack status` until `stack up` starts it again.
import fs from "node:fs";
import path from "node:path";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import {
  alertmanagerUrl,
  holdApps,
  localTargets,
  prometheusUrl,
  releaseApps,
  repoRoot,
  type Stack,
  stackStatus,
  type TargetGroup,
  up,
} from "../src/index.ts";
import { waitFor } from "../src/proc.ts";

interface ActiveTarget {
  labels: Record<string, string>;
  health: "up" | "down" | "unknown";
  lastError: string;
  scrapeUrl: string;
}

/** job:label for every target the stack must have (the contract of prometheus.yml's jobs). */
const EXPECTED = [
  ...["order", "inventory", "points"].flatMap((s) => [`service:${s}`, `relay:${s}`]),
  ...["rabbit-1", "rabbit-2", "rabbit-3"].map((n) => `rabbitmq:${n}`),
  "postgres:",
  "redis:",
  "prometheus:",
  "alertmanager:",
].sort();

const key = (job: string, labels: Record<string, string> = {}) =>
  `${job}:${labels.service ?? labels.node ?? ""}`;

async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return ((await r.json()) as { data: T }).data;
}

const activeTargets = async (s: Stack) =>
  (await getJson<{ activeTargets: ActiveTarget[] }>(`${prometheusUrl(s)}/api/v1/targets?state=active`))
    .activeTargets;

async function instantValue(s: Stack, query: string): Promise<string | undefined> {
  const data = await getJson<{ result: { value: [number, string] }[] }>(
    `${prometheusUrl(s)}/api/v1/query?query=${encodeURIComponent(query)}`,
  );
  return data.result[0]?.value[1];
}

let s: Stack;
beforeAll(async () => {
  s = await requireHealthyStack();
  // Component tests run with the services held stopped; their targets are only up while they run.
  await releaseApps(s);
}, 180_000);
afterAll(async () => {
  await holdApps(s);
}, 60_000);

describe("the local stack's Prometheus", () => {
  test("stack status gives the URLs of Prometheus and Alertmanager, both healthy with a PID", async () => {
    const status = await stackStatus(s);
    const port = (n: number) => `http://127.0.0.1:${n + s.env.portOffset}`;
    expect(status.prometheus).toEqual({ url: port(17090), healthy: true, pid: expect.any(Number) });
    expect(status.alertmanager).toEqual({ url: port(17093), healthy: true, pid: expect.any(Number) });
    expect(prometheusUrl(s)).toBe(status.prometheus.url);
    expect(alertmanagerUrl(s)).toBe(status.alertmanager.url);
    expect(status.exporters.postgres.healthy).toBe(true);
    expect(status.exporters.redis.healthy).toBe(true);
  });

  test("lists every service, relay, broker node, both exporters, itself and Alertmanager, and all are up", async () => {
    let last: ActiveTarget[] = [];
    const allUp = async () => {
      last = await activeTargets(s);
      const upKeys = last.filter((t) => t.health === "up").map((t) => key(t.labels.job ?? "", t.labels));
      return EXPECTED.every((k) => upKeys.includes(k));
    };
    // A target appears on the next file_sd read and is up after its first scrape (5 s interval).
    await waitFor("every target up", allUp, { timeoutMs: 30_000, intervalMs: 500 }).catch(() => {});
    const seen = last.map((t) => `${key(t.labels.job ?? "", t.labels)} ${t.health} ${t.lastError}`.trim());
    expect(last.map((t) => key(t.labels.job ?? "", t.labels)).sort(), seen.join("\n")).toEqual(EXPECTED);
    expect(
      last.filter((t) => t.health !== "up").map((t) => `${t.scrapeUrl}: ${t.lastError}`),
      "targets not up",
    ).toEqual([]);
    // Per-queue series, so a queue's depth and a parking lot can be asked for by name.
    expect(last.find((t) => t.labels.job === "rabbitmq")?.scrapeUrl).toMatch(/\/metrics\/per-object$/);
  });

  test("the exporters see their servers: pg_up and redis_up are 1", async () => {
    for (const q of ["pg_up", "redis_up"])
      expect(
        await waitFor(`${q} == 1`, async () => (await instantValue(s, q)) === "1" && "1", {
          timeoutMs: 20_000,
          intervalMs: 500,
        }),
      ).toBe("1");
  });

  test("it sends alerts to the stack's Alertmanager", async () => {
    const data = await getJson<{ activeAlertmanagers: { url: string }[] }>(
      `${prometheusUrl(s)}/api/v1/alertmanagers`,
    );
    expect(data.activeAlertmanagers.map((a) => a.url)).toEqual([`${alertmanagerUrl(s)}/api/v2/alerts`]);
  });

  test("a killed Prometheus is a problem in stack status, and stack up starts it again", async () => {
    const before = (await stackStatus(s)).prometheus.pid;
    if (!before) throw new Error("Prometheus has no PID");
    process.kill(before, "SIGKILL");
    // Its HTTP port closes while the process is still exiting (kill(0) still answers until it is a
    // zombie): wait until status has seen both, as CI once caught it between the two.
    const down = await waitFor(
      "stack status to report Prometheus down, with no PID",
      async () => {
        const st = await stackStatus(s);
        return !st.prometheus.healthy && st.prometheus.pid === null && st;
      },
      { timeoutMs: 10_000 },
    );
    expect(down.healthy).toBe(false);
    expect(down.prometheus.pid).toBeNull();
    expect(down.problems).toContain("prometheus: not running");

    const { status } = await up();
    expect(status.prometheus.healthy).toBe(true);
    expect(status.prometheus.pid).not.toBe(before);
    expect(status.problems).toEqual([]);
  }, 300_000);
});

describe("prometheus.yml serves the local stack and docker compose alike", () => {
  const dir = path.join(repoRoot, "infra/prometheus");
  const config = parse(fs.readFileSync(path.join(dir, "prometheus.yml"), "utf8")) as {
    global: Record<string, string>;
    scrape_configs: { job_name: string; file_sd_configs: { files: string[] }[] }[];
  };
  const labelsOf = (groups: TargetGroup[]) => groups.map((g) => g.labels ?? {});

  test("scrapes and evaluates rules every 5 s", () => {
    expect(config.global).toMatchObject({ scrape_interval: "5s", evaluation_interval: "5s" });
  });

  test("each job reads targets/<job>.json, which the stack writes and compose-targets/ holds, with the same labels", () => {
    const local = localTargets(s.layout);
    const jobs = config.scrape_configs.map((j) => j.job_name).sort();
    expect(jobs).toEqual(Object.keys(local).sort());
    for (const j of config.scrape_configs) {
      expect(j.file_sd_configs.flatMap((f) => f.files)).toEqual([`targets/${j.job_name}.json`]);
      const compose = JSON.parse(
        fs.readFileSync(path.join(dir, "compose-targets", `${j.job_name}.json`), "utf8"),
      ) as TargetGroup[];
      expect(labelsOf(compose), j.job_name).toEqual(labelsOf(local[j.job_name] ?? []));
      const written = JSON.parse(
        fs.readFileSync(path.join(s.layout.prometheus.targetsDir, `${j.job_name}.json`), "utf8"),
      ) as TargetGroup[];
      expect(written, j.job_name).toEqual(local[j.job_name]);
    }
  });
});
