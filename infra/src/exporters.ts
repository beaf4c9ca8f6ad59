// Debian's PostgreSQL and Redis exporters, which turn the two servers' own statistics into metrics for
// Prometheus (jobs postgres and redis). Both get their password through the environment, not argv.
import type { Layout } from "./layout.ts";
import {
  type MonitorProcess,
  monitorHealthy,
  monitorPid,
  monitorUrl,
  startMonitorProcess,
  stopMonitorProcess,
} from "./monitor-process.ts";
import { monitorUrl as postgresMonitorUrl } from "./postgres.ts";
import type { StackSecrets } from "./secrets.ts";

interface ExporterDeps {
  layout: Layout;
  secrets: StackSecrets;
}

function postgresExporter(d: ExporterDeps): MonitorProcess {
  const e = d.layout.postgresExporter;
  return {
    what: "the PostgreSQL exporter",
    layout: e,
    command: "/usr/bin/prometheus-postgres-exporter",
    args: [`--web.listen-address=127.0.0.1:${e.port}`],
    // As orderflow_monitor (pg_monitor): statistics of the whole instance, no service's tables.
    env: { DATA_SOURCE_NAME: postgresMonitorUrl(d) },
    healthPath: "/metrics",
  };
}

function redisExporter(d: ExporterDeps): MonitorProcess {
  const e = d.layout.redisExporter;
  return {
    what: "the Redis exporter",
    layout: e,
    command: "/usr/bin/prometheus-redis-exporter",
    args: [`-web.listen-address=127.0.0.1:${e.port}`],
    env: { REDIS_ADDR: `redis://127.0.0.1:${d.layout.redis.port}`, REDIS_PASSWORD: d.secrets.redis },
    healthPath: "/metrics",
  };
}

export type ExporterName = "postgres" | "redis";

const exporters = (d: ExporterDeps): Record<ExporterName, MonitorProcess> => ({
  postgres: postgresExporter(d),
  redis: redisExporter(d),
});

export const exporterUrl = (layout: Layout, name: ExporterName): string =>
  `${monitorUrl(name === "postgres" ? layout.postgresExporter : layout.redisExporter)}/metrics`;

export const exporterPid = (layout: Layout, name: ExporterName): number | undefined =>
  monitorPid(name === "postgres" ? layout.postgresExporter : layout.redisExporter);

export const exporterHealthy = (d: ExporterDeps, name: ExporterName): Promise<boolean> =>
  monitorHealthy(exporters(d)[name]);

/**
 * Starts an exporter unless it runs. It serves (pg_up / redis_up 0) while its server is down, so it may
 * start before the server; a running one keeps its password, which the stack never changes.
 */
export async function startExporter(d: ExporterDeps, name: ExporterName): Promise<void> {
  await startMonitorProcess(exporters(d)[name]);
}

export async function stopExporters(layout: Layout): Promise<void> {
  await Promise.all([stopMonitorProcess(layout.postgresExporter), stopMonitorProcess(layout.redisExporter)]);
}
