// Profiles and k6's results: `docker compose up -d --wait` boots the core alone, `--profile monitoring`
// adds Prometheus, Alertmanager, the exporters, Grafana and Jaeger, and `--profile load` is k6, whose
// metrics reach Grafana's k6 dashboard through Prometheus' remote-write receiver, one testid per run.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import {
  coreServices,
  MONITORING_PROFILE,
  profileServices,
  publishedPorts,
  readProject,
} from "../src/compose/project.ts";
import { K6_TREND_STATS } from "../src/dashboards/k6-board.ts";
import { repoRoot } from "../src/index.ts";
import { composeService, readCompose, readRepoFile } from "./compose-file.ts";

const compose = readCompose();
const project = readProject(repoRoot);
const core = coreServices(project);
const monitoring = profileServices(project, MONITORING_PROFILE);

const dependsOn = (name: string): string[] => Object.keys(composeService(compose, name).depends_on ?? {});

describe("profiles", () => {
  test("monitoring is a profile of its own, k6 is profile load, every other service is core", () => {
    expect([...monitoring].sort()).toEqual(
      ["alertmanager", "grafana", "jaeger", "postgres-exporter", "prometheus", "redis-exporter"].sort(),
    );
    expect(profileServices(project, "load")).toEqual(["k6"]);
    const profiled = Object.entries(compose.services).filter(([, s]) => s.profiles?.length);
    expect(profiled.map(([name]) => name).sort()).toEqual([...monitoring, "k6"].sort());
    for (const [name, s] of profiled) expect(s.profiles, name).toHaveLength(1);
    expect(core).toEqual(
      expect.arrayContaining(["check-env", "postgres", "rabbitmq-setup", "order", "control"]),
    );
  });

  test("the core boots alone: no core service waits for a service of a profile", () => {
    const waits = core.flatMap((name) =>
      dependsOn(name)
        .filter((dep) => !core.includes(dep))
        .map((dep) => `${name} -> ${dep}`),
    );
    expect(waits).toEqual([]);
  });

  test("a profile's services wait only for the core or their own profile (k6 never for Prometheus)", () => {
    for (const name of monitoring)
      for (const dep of dependsOn(name)) expect([...core, ...monitoring], `${name} -> ${dep}`).toContain(dep);
    // `--profile load run k6` would refuse to start a dependency of a profile it was not given.
    expect(dependsOn("k6").filter((dep) => !core.includes(dep))).toEqual([]);
  });

  test("a core container names a monitoring host at most as its OTLP endpoint, which may be absent", () => {
    // The exporter sends spans in the background and logs a warning for each batch it could not send;
    // a process never waits for it to start or serve (packages/telemetry/src/start-tracing.ts).
    const hosts = new RegExp(`//(${monitoring.join("|")})[:/]`);
    const uses = core.flatMap((name) =>
      Object.entries(composeService(compose, name).environment ?? {})
        .filter(([, value]) => hosts.test(String(value)))
        .map(([key]) => `${name}: ${key}`),
    );
    expect(uses.filter((u) => !u.endsWith(": OTEL_EXPORTER_OTLP_ENDPOINT"))).toEqual([]);
  });
});

describe("k6's results in Prometheus and Grafana", () => {
  const k6 = composeService(compose, "k6");
  const env = k6.environment ?? {};

  test("Prometheus accepts remote write, and k6 sends to it on the compose network", () => {
    expect(composeService(compose, "prometheus").command).toContain("--web.enable-remote-write-receiver");
    expect((env.K6_OUT ?? "").split(",")).toContain("experimental-prometheus-rw");
    const [prom] = publishedPorts(project, ["prometheus"]);
    expect(prom).toBeDefined();
    expect(env.K6_PROMETHEUS_RW_SERVER_URL).toBe(`http://prometheus:${prom?.target}/api/v1/write`);
  });

  test("k6 sends p(99), and every trend statistic the k6 dashboard reads", () => {
    const stats = (env.K6_PROMETHEUS_RW_TREND_STATS ?? "").split(",");
    expect(stats).toContain("p(99)");
    expect(K6_TREND_STATS.filter((s) => !stats.includes(s))).toEqual([]);
  });

  test("Grafana provisions the k6 dashboard from the folder it mounts", () => {
    const grafana = composeService(compose, "grafana");
    expect(grafana.volumes).toContain("./infra/grafana/dashboards:/etc/grafana/dashboards:ro");
    const board = JSON.parse(readRepoFile("infra/grafana/dashboards/k6.json")) as { uid: string };
    expect(board.uid).toBe("orderflow-k6");
  });

  test("@types/k6, which `pnpm k6:check` checks the scripts against, is on the image's k6 line", () => {
    const image = /^grafana\/k6:(\d+)\.(\d+)\.\d+$/.exec(k6.image ?? "");
    expect(image, `k6 image ${k6.image}`).not.toBeNull();
    const catalog = (parse(readRepoFile("pnpm-workspace.yaml")) as { catalog: Record<string, string> })
      .catalog;
    const types = /^(\d+)\.(\d+)\.\d+$/.exec(catalog["@types/k6"] ?? "");
    expect(types, `@types/k6 ${catalog["@types/k6"]}`).not.toBeNull();
    expect([types?.[1], types?.[2]]).toEqual([image?.[1], image?.[2]]);
  });
});

describe("one testid per k6 run", () => {
  type Config = { testId: string | undefined };
  type ConfigModule = {
    readConfig(env: Record<string, string | undefined>): Config;
    testIdOf(scenario: string, cfg: Config, now: Date): string;
  };
  // Plain k6 JavaScript with no k6 import: node runs it as it is.
  const load = async () =>
    (await import(pathToFileURL(path.join(repoRoot, "load/k6/lib/config.js")).href)) as ConfigModule;
  const at = new Date("2026-12-06T10:15:00.123Z");

  test("the scenario and its start time, or TESTID as given", async () => {
    const { readConfig, testIdOf } = await load();
    expect(testIdOf("broker-outage", readConfig({}), at)).toBe("broker-outage-20261206T101500Z");
    expect(testIdOf("steady", readConfig({ TESTID: "steady-baseline" }), at)).toBe("steady-baseline");
    expect(() => testIdOf("steady", readConfig({ TESTID: 'a"b' }), at)).toThrow(/TESTID must be/);
  });

  test("every script's options carry it as a tag on every metric", () => {
    const scenario = readRepoFile("load/k6/lib/scenario.js");
    expect(scenario).toMatch(/tags: \{ testid: testIdOf\(def\.name, cfg, new Date\(\)\) \}/);
  });
});
