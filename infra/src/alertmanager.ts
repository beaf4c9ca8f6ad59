// The stack's Alertmanager (Debian's prometheus-alertmanager) with infra/prometheus/alertmanager.yml, the
// file docker-compose.yml mounts too. One instance: its cluster gossip port stays closed.
import fs from "node:fs";
import path from "node:path";
import type { Layout } from "./layout.ts";
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
import { PROMETHEUS_CONFIG_DIR } from "./prometheus.ts";

export const alertmanagerUrl = (s: { layout: Layout }): string => monitorUrl(s.layout.alertmanager);
export const alertmanagerPid = (layout: Layout): number | undefined => monitorPid(layout.alertmanager);

function alertmanagerProcess(layout: Layout): MonitorProcess {
  const a = layout.alertmanager;
  return {
    what: "Alertmanager",
    layout: a,
    command: "/usr/bin/prometheus-alertmanager",
    args: [
      `--config.file=${a.configFile}`,
      `--storage.path=${a.dataDir}`,
      `--web.listen-address=127.0.0.1:${a.port}`,
      // Empty: no gossip listener (it would bind 0.0.0.0:9094, outside the stack's ports).
      "--cluster.listen-address=",
    ],
    healthPath: "/-/ready",
  };
}

export const alertmanagerHealthy = (layout: Layout): Promise<boolean> =>
  monitorHealthy(alertmanagerProcess(layout));

/** Copies the config (checked by amtool), then starts Alertmanager or has it reload. */
export async function startAlertmanager(layout: Layout): Promise<void> {
  const a = layout.alertmanager;
  fs.mkdirSync(a.dataDir, { recursive: true });
  fs.copyFileSync(path.join(PROMETHEUS_CONFIG_DIR, "alertmanager.yml"), a.configFile);
  await runOrThrow("amtool check-config", "/usr/bin/amtool", ["check-config", a.configFile]);
  const started = await startMonitorProcess(alertmanagerProcess(layout));
  if (!started && !(await httpOk(`${alertmanagerUrl({ layout })}/-/reload`, { method: "POST" }, 10_000)))
    throw new Error(`Alertmanager did not reload its config (see ${a.logFile})`);
}

export const stopAlertmanager = (layout: Layout): Promise<void> => stopMonitorProcess(layout.alertmanager);
