// The stack's Prometheus (Debian's package): the repository's infra/prometheus/prometheus.yml and rules,
// copied into the stack folder beside targets/*.json written for the local ports. docker-compose.yml
// mounts the same config and rules with compose-targets/, so only the targets differ between the two.
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "./env.ts";
import { instancePort, type Layout } from "./layout.ts";
import {
  httpOk,
  type MonitorProcess,
  monitorHealthy,
  monitorPid,
  monitorUrl,
  startMonitorProcess,
  stopMonitorProcess,
} from "./monitor-process.ts";
import { runOrThrow } from "./proc.ts";
import { SERVICE_NAMES } from "./services.ts";

export const PROMETHEUS_CONFIG_DIR = path.join(repoRoot, "infra/prometheus");

/** One entry of a file_sd targets file. */
export interface TargetGroup {
  targets: string[];
  labels?: Record<string, string>;
}

const at = (port: number) => `127.0.0.1:${port}`;

/**
 * The services' and relays' jobs, one group per instance. With replicas, the instance's number is the
 * label `replica` (`instance` is Prometheus's own, the target's address); with one of each, the labels
 * are compose-targets/'s.
 */
function appTargets(layout: Layout, replicas: number): Record<"service" | "relay", TargetGroup[]> {
  const groups = (ports: Layout["servicePorts"]) =>
    SERVICE_NAMES.flatMap((svc) =>
      Array.from({ length: replicas }, (_, i) => ({
        targets: [at(instancePort(ports[svc], i + 1))],
        labels: { service: svc, ...(replicas > 1 ? { replica: String(i + 1) } : {}) },
      })),
    );
  return { service: groups(layout.servicePorts), relay: groups(layout.relayMetricsPorts) };
}

/** The scrape jobs of prometheus.yml (and the Alertmanager it sends to) with their local addresses. */
export function localTargets(layout: Layout, replicas = 1): Record<string, TargetGroup[]> {
  return {
    ...appTargets(layout, replicas),
    rabbitmq: layout.rabbitmq.nodes.map((n) => ({
      targets: [`${n.host}:${n.prometheusPort}`],
      labels: { node: n.name.split("@")[0] ?? n.name },
    })),
    postgres: [{ targets: [at(layout.postgresExporter.port)] }],
    redis: [{ targets: [at(layout.redisExporter.port)] }],
    prometheus: [{ targets: [at(layout.prometheus.port)] }],
    alertmanager: [{ targets: [at(layout.alertmanager.port)] }],
  };
}

/** A file replaced in one step: Prometheus watches targets/ and must never read half a file. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Points the service and relay jobs at `replicas` instances of each (Prometheus re-reads targets/). */
export function writeAppTargets(layout: Layout, replicas: number): void {
  fs.mkdirSync(layout.prometheus.targetsDir, { recursive: true });
  for (const [job, groups] of Object.entries(appTargets(layout, replicas)))
    writeAtomically(
      path.join(layout.prometheus.targetsDir, `${job}.json`),
      `${JSON.stringify(groups, null, 2)}\n`,
    );
}

/** Copies prometheus.yml and rules/*.rules.yml (rules/ may be empty) and writes targets/*.json. */
export function installPrometheusConfig(layout: Layout, from = PROMETHEUS_CONFIG_DIR): void {
  const p = layout.prometheus;
  for (const d of [p.dir, p.rulesDir, p.targetsDir, p.dataDir]) fs.mkdirSync(d, { recursive: true });
  writeAtomically(p.configFile, fs.readFileSync(path.join(from, "prometheus.yml"), "utf8"));
  const rulesFrom = path.join(from, "rules");
  const wanted = fs.existsSync(rulesFrom)
    ? fs.readdirSync(rulesFrom).filter((f) => f.endsWith(".rules.yml"))
    : [];
  // A rules file removed from the repository stops being evaluated too.
  for (const f of fs.readdirSync(p.rulesDir)) if (!wanted.includes(f)) fs.rmSync(path.join(p.rulesDir, f));
  for (const f of wanted)
    writeAtomically(path.join(p.rulesDir, f), fs.readFileSync(path.join(rulesFrom, f), "utf8"));
  for (const [job, groups] of Object.entries(localTargets(layout)))
    writeAtomically(path.join(p.targetsDir, `${job}.json`), `${JSON.stringify(groups, null, 2)}\n`);
}

export const prometheusUrl = (s: { layout: Layout }): string => monitorUrl(s.layout.prometheus);
export const prometheusPid = (layout: Layout): number | undefined => monitorPid(layout.prometheus);

function prometheusProcess(layout: Layout): MonitorProcess {
  const p = layout.prometheus;
  return {
    what: "Prometheus",
    layout: p,
    command: "/usr/bin/prometheus",
    args: [
      `--config.file=${p.configFile}`,
      `--storage.tsdb.path=${p.dataDir}`,
      // A few days of a laptop's faults; the folder is the stack's, deleted with it.
      "--storage.tsdb.retention.time=3d",
      `--web.listen-address=127.0.0.1:${p.port}`,
      // POST /-/reload after `stack up` copied new rules (targets are re-read on their own).
      "--web.enable-lifecycle",
    ],
    healthPath: "/-/ready",
  };
}

export const prometheusHealthy = (layout: Layout): Promise<boolean> =>
  monitorHealthy(prometheusProcess(layout));

/**
 * Installs the config (checked by promtool first, so a broken rules file fails `stack up` with promtool's
 * message instead of a Prometheus that keeps its old rules), then starts Prometheus or has it reload.
 */
export async function startPrometheus(layout: Layout): Promise<void> {
  installPrometheusConfig(layout);
  await runOrThrow("promtool check config", "/usr/bin/promtool", [
    "check",
    "config",
    layout.prometheus.configFile,
  ]);
  const started = await startMonitorProcess(prometheusProcess(layout), 60_000);
  if (!started && !(await httpOk(`${prometheusUrl({ layout })}/-/reload`, { method: "POST" }, 10_000)))
    throw new Error(`Prometheus did not reload its config (see ${layout.prometheus.logFile})`);
}

export const stopPrometheus = (layout: Layout): Promise<void> => stopMonitorProcess(layout.prometheus);
