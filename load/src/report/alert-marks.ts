// Alerts on the report: when each one reached Alertmanager and when it resolved, as chart marks, event
// rows and a table. The report only reads these fields; the fault lab's watcher records them.
import { esc, fmtMs } from "./html.ts";
import type { ChartMarker } from "./svg-chart.ts";

export interface AlertSpan {
  name: string;
  /** The alert's labels other than alertname. */
  labels: Record<string, string>;
  /** Alertmanager's startsAt on the run's clock: for Prometheus alerts, when the rule's condition first held. */
  startsAtMs: number;
  /** The first poll that saw it active in Alertmanager, on the run's clock. */
  firstSeenMs: number;
  /** The first poll that no longer saw it active; null when it was still active at the last poll. */
  resolvedMs: number | null;
  /** Active already at the watcher's first poll: it started before this run. */
  activeAtStart?: boolean;
}

/** Labels that tell alerts of one name apart; severity, and the scrape's job and instance, do not. */
const shown = (labels: Record<string, string>) =>
  Object.entries(labels).filter(([k]) => !["severity", "job", "instance"].includes(k));

export const labelText = (labels: Record<string, string>) =>
  shown(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");

/**
 * One mark per alert name, second and edge: the three BrokerNodeDown alerts of a whole-broker outage
 * arrive within the same poll and would otherwise draw three labels on top of each other.
 */
export function alertMarkers(alerts: readonly AlertSpan[]): ChartMarker[] {
  const groups = new Map<string, { x: number; name: string; edge: "fired" | "resolved"; who: string[] }>();
  const add = (a: AlertSpan, atMs: number, edge: "fired" | "resolved") => {
    const key = `${a.name}|${edge}|${Math.round(atMs / 1000)}`;
    const g = groups.get(key) ?? { x: atMs / 1000, name: a.name, edge, who: [] };
    // Values only on a chart: "BrokerNodeDown (rabbit-1, rabbit-2) fired" fits beside the line.
    const who = shown(a.labels)
      .map(([, v]) => v)
      .join(" ");
    if (who !== "") g.who.push(who);
    groups.set(key, g);
  };
  for (const a of alerts) {
    if (!a.activeAtStart) add(a, a.firstSeenMs, "fired");
    if (a.resolvedMs !== null) add(a, a.resolvedMs, "resolved");
  }
  return [...groups.values()]
    .sort((a, b) => a.x - b.x)
    .map((g) => ({
      x: g.x,
      label: `${g.name}${g.who.length > 0 ? ` (${g.who.join(", ")})` : ""} ${g.edge}`,
      kind: g.edge === "fired" ? "alert-fired" : "alert-resolved",
    }));
}

/** The alerts as rows of the events table: "alert fired: NAME" / "alert resolved: NAME". */
export function alertEvents(
  alerts: readonly AlertSpan[],
): Array<{ atMs: number; name: string; detail: Record<string, unknown> }> {
  return alerts.flatMap((a) => [
    ...(a.activeAtStart
      ? []
      : [{ atMs: a.firstSeenMs, name: `alert fired: ${a.name}`, detail: { ...a.labels } }]),
    ...(a.resolvedMs === null
      ? []
      : [{ atMs: a.resolvedMs, name: `alert resolved: ${a.name}`, detail: { ...a.labels } }]),
  ]);
}

/** The alerts that reached Alertmanager during the run, by name: "BrokerNodeDown ×3, ServiceDown". */
export function alertsFired(alerts: readonly AlertSpan[] | undefined): string {
  const counts = new Map<string, number>();
  for (const a of alerts ?? []) if (!a.activeAtStart) counts.set(a.name, (counts.get(a.name) ?? 0) + 1);
  if (counts.size === 0) return "—";
  return [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(", ");
}

const at = (ms: number | null) => (ms === null ? "—" : `${(ms / 1000).toFixed(1)} s`);

export function alertsTable(alerts: readonly AlertSpan[] | undefined): string {
  if (alerts === undefined) return `<p class="note">This run did not watch Alertmanager.</p>`;
  if (alerts.length === 0) return `<p class="note">No alert was active in Alertmanager during this run.</p>`;
  const rows = [...alerts]
    .sort((a, b) => a.firstSeenMs - b.firstSeenMs)
    .map(
      (a) =>
        `<tr data-alert="${esc(a.name)}"><td>${esc(a.name)}</td><td>${esc(labelText(a.labels))}</td><td class="num">${esc(
          at(a.startsAtMs),
        )}</td><td class="num">${esc(a.activeAtStart ? "before the run" : at(a.firstSeenMs))}</td><td class="num">${esc(
          a.resolvedMs === null ? "still active" : at(a.resolvedMs),
        )}</td><td class="num">${esc(a.resolvedMs === null ? "—" : fmtMs(a.resolvedMs - a.startsAtMs))}</td></tr>`,
    )
    .join("");
  return `<table id="alerts"><thead><tr><th>alert</th><th>labels</th><th class="num">condition held from</th><th class="num">in Alertmanager from</th><th class="num">resolved</th><th class="num">lasted</th></tr></thead><tbody>${rows}</tbody></table>
<p class="note">Seconds since the run started. "Condition held from" is the alert's startsAt (for Prometheus, when the rule's expression first held, before its <code>for</code>); the other two are the lab's once-a-second polls of Alertmanager.</p>`;
}
