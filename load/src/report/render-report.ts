// One self-contained HTML page for one run: inline CSS and SVG only, so it can be mailed, archived as
// a CI artifact or opened from disk years later without anything to fetch.
import type { RunResult } from "../result.ts";
import { type AlertSpan, alertEvents, alertMarkers, alertsTable } from "./alert-marks.ts";
import {
  type AuditVerdict,
  apiRecoveryMs,
  availabilityDuringFaults,
  availabilityPerSecond,
  backlogRecoveryMs,
  type ExtraSeries,
  faultWindows,
} from "./derive.ts";
import { esc, fmtDamageValue, fmtMs, fmtNum, fmtPct, fmtUs, jsonBlock, page } from "./html.ts";
import { type InFlightSample, inFlightTable } from "./in-flight.ts";
import { type ChartMarker, type ChartSeries, lineChart } from "./svg-chart.ts";

export interface ReportInput {
  run: RunResult;
  series?: ExtraSeries[];
  audit?: AuditVerdict;
  /** The alerts Alertmanager held during the run (the fault lab watches it); undefined when not watched. */
  alerts?: AlertSpan[];
  /** Overrides where the run says it ran (shown under the title). */
  machine?: string;
  /** What was in flight when each fault action started (the fault lab measures it); undefined: not measured. */
  inFlight?: InFlightSample[];
}

/** The figures shown in the header cards and in the summary table across runs. */
export interface ReportFigures {
  name: string;
  thresholdsPassed: boolean;
  auditPassed: boolean | null;
  offeredPerSecond: number;
  achievedPerSecond: number;
  p99Ms: number | null;
  maxMs: number | null;
  failedRate: number;
  dropped: number;
  faults: number;
  availabilityDuringFaults: number | null;
  /** The audit's own figure when it gives one, else fault healed -> backlog drained from the series. */
  recoveryMs: number | null;
  apiRecoveryMs: number | null;
  duplicateRate: number | null;
  damage: Record<string, number> | null;
  broker: Record<string, number> | null;
}

const COLORS = ["#1f6feb", "#2da44e", "#8250df", "#bf3989", "#9a6700", "#0a7b83", "#cf222e", "#57606a"];

export function reportFigures(input: ReportInput): ReportFigures {
  const { run, audit } = input;
  const windows = faultWindows(run.events, run.durationMs);
  const recovery =
    typeof audit?.recoveryTimeMs === "number"
      ? audit.recoveryTimeMs
      : backlogRecoveryMs(input.series ?? [], run.events);
  return {
    name: run.name,
    thresholdsPassed: run.passed,
    auditPassed: typeof audit?.passed === "boolean" ? audit.passed : null,
    offeredPerSecond: run.summary.offeredPerSecond,
    achievedPerSecond: run.summary.achievedPerSecond,
    p99Ms: run.summary.latencyUs ? run.summary.latencyUs.p99 / 1000 : null,
    maxMs: run.summary.latencyUs ? run.summary.latencyUs.max / 1000 : null,
    failedRate: run.summary.httpReqFailedRate,
    dropped: run.summary.iterations.dropped,
    faults: windows.length,
    availabilityDuringFaults: availabilityDuringFaults(run.timeline, windows),
    recoveryMs: recovery,
    apiRecoveryMs: apiRecoveryMs(run.timeline, run.events),
    duplicateRate: typeof audit?.duplicateRate === "number" ? audit.duplicateRate : null,
    damage: audit?.damage ?? null,
    broker: audit?.broker ?? null,
  };
}

function card(label: string, value: string, cls = ""): string {
  return `<div class="card"><div class="k">${esc(label)}</div><div class="v ${cls}">${value}</div></div>`;
}

function verdictBadge(ok: boolean | null, yes = "PASS", no = "FAIL"): string {
  if (ok === null) return "—";
  return `<span class="badge ${ok ? "ok" : "bad"}">${ok ? yes : no}</span>`;
}

function charts(input: ReportInput): string {
  const { run } = input;
  const lastSample = Math.max(0, ...(input.series ?? []).map((s) => s.points.at(-1)?.atMs ?? 0)) / 1000;
  // An alert resolves during the settle phase, after the load: the axis runs on to show it.
  const lastAlert = Math.max(0, ...(input.alerts ?? []).map((a) => a.resolvedMs ?? a.firstSeenMs)) / 1000;
  const endS = Math.max(1, run.durationMs / 1000, run.timeline.length, lastSample, Math.ceil(lastAlert + 1));
  const markers: ChartMarker[] = [
    ...run.events.map((e) => ({ x: e.atMs / 1000, label: e.name })),
    ...alertMarkers(input.alerts ?? []),
  ];
  const windows = faultWindows(run.events, run.durationMs).map((w) => ({
    from: w.fromMs / 1000,
    to: w.toMs / 1000,
  }));
  const common = { markers, windows, xLabel: "seconds since start", xDomain: [0, endS] as [number, number] };
  // Seconds after the schedule only hold late answers: series about what was sent stop there.
  const scheduleSeconds = Math.ceil((run.scheduleMs ?? run.durationMs) / 1000);
  const sent = (pick: (s: RunResult["timeline"][number]) => number | null) =>
    run.timeline.map((s): [number, number | null] => [
      s.second + 0.5,
      s.second < scheduleSeconds ? pick(s) : null,
    ]);
  const perSecond = (pick: (s: RunResult["timeline"][number]) => number | null) =>
    run.timeline.map((s): [number, number | null] => [s.second + 0.5, pick(s)]);

  const out: string[] = [];
  out.push(
    lineChart({
      ...common,
      id: "chart-rate",
      title: "Offered vs achieved rate",
      yLabel: "iterations / s",
      series: [
        { name: "offered", color: "#57606a", dashed: true, points: sent((s) => s.offered) },
        { name: "achieved (completed)", color: "#1f6feb", points: perSecond((s) => s.completed) },
        { name: "2xx", color: "#2da44e", points: sent((s) => s.status["2xx"]) },
        { name: "dropped", color: "#cf222e", points: sent((s) => s.dropped) },
      ],
    }),
  );
  const lat = (k: "p50" | "p90" | "p99" | "max") =>
    perSecond((s) => (s.latencyUs ? s.latencyUs[k] / 1000 : null));
  out.push(
    lineChart({
      ...common,
      id: "chart-latency",
      title: "Latency from intended start, by the second requests were meant to start (log scale)",
      yLabel: "ms",
      logY: true,
      formatY: (y) => (y >= 1000 ? `${y / 1000} s` : `${y} ms`),
      series: [
        { name: "p50", color: "#2da44e", points: lat("p50") },
        { name: "p90", color: "#9a6700", points: lat("p90") },
        { name: "p99", color: "#cf222e", points: lat("p99") },
        { name: "max", color: "#8250df", dashed: true, points: lat("max") },
      ],
    }),
  );
  out.push(
    lineChart({
      ...common,
      id: "chart-availability",
      title: "Order API availability: share of 2xx per second (dropped iterations count as unavailable)",
      yLabel: "% 2xx",
      yMax: 105,
      formatY: (y) => `${y}%`,
      series: [
        {
          name: "2xx share",
          color: "#2da44e",
          points: availabilityPerSecond(run.timeline).map(([s, a]) => [s + 0.5, a === null ? null : a * 100]),
        },
      ],
    }),
  );
  out.push(
    lineChart({
      ...common,
      id: "chart-status",
      title: "Outcomes per second (by intended start)",
      yLabel: "requests",
      series: [
        { name: "4xx", color: "#9a6700", points: sent((s) => s.status["4xx"]) },
        { name: "5xx", color: "#cf222e", points: sent((s) => s.status["5xx"]) },
        { name: "errors/timeouts", color: "#8250df", points: sent((s) => s.status.errors) },
      ],
    }),
  );

  const groups = new Map<string, ExtraSeries[]>();
  for (const s of input.series ?? []) {
    const title = s.chart ?? "Backlog and queue depths";
    groups.set(title, [...(groups.get(title) ?? []), s]);
  }
  let g = 0;
  for (const [title, list] of groups) {
    const series: ChartSeries[] = list.map((s, i) => ({
      name: s.name,
      color: COLORS[i % COLORS.length] ?? "#1f6feb",
      points: s.points.map((p): [number, number] => [p.atMs / 1000, p.value]),
    }));
    out.push(
      lineChart({
        ...common,
        id: `chart-series-${g++}`,
        title,
        yLabel: list[0]?.unit ?? "count",
        series,
      }),
    );
  }
  return out.map((svg) => `<div class="chart">${svg}</div>`).join("\n");
}

function thresholdsTable(run: RunResult): string {
  if (run.thresholds.length === 0) return `<p class="note">No thresholds were set.</p>`;
  const rows = run.thresholds
    .map(
      (t) =>
        `<tr><td>${esc(t.metric)}</td><td><code>${esc(t.expression)}</code></td><td class="num">${
          t.actual === null ? "no samples" : esc(fmtNum(t.actual, 4))
        }</td><td>${verdictBadge(t.ok)}</td></tr>`,
    )
    .join("");
  return `<table id="thresholds"><thead><tr><th>metric</th><th>threshold</th><th class="num">actual</th><th>result</th></tr></thead><tbody>${rows}</tbody></table>
<p class="note">http_req_duration is in ms, measured from each request's intended start; http_req_failed counts transport errors and statuses outside 200-399.</p>`;
}

function eventsTable(run: RunResult, alerts: readonly AlertSpan[]): string {
  const events = [
    ...run.events.map((e) => ({ ...e, cls: "" })),
    ...alertEvents(alerts).map((e) => ({ ...e, cls: "alert" })),
  ].sort((a, b) => a.atMs - b.atMs);
  if (events.length === 0) return `<p class="note">No events were marked.</p>`;
  const rows = events
    .map(
      (e) =>
        `<tr${e.cls ? ` class="${e.cls}"` : ""}><td class="num">${esc((e.atMs / 1000).toFixed(2))} s</td><td>${esc(e.name)}</td><td>${
          e.detail === undefined ? "" : `<code>${esc(JSON.stringify(e.detail))}</code>`
        }</td></tr>`,
    )
    .join("");
  return `<table id="events"><thead><tr><th class="num">at</th><th>event</th><th>detail</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderReport(input: ReportInput): string {
  const { run } = input;
  const f = reportFigures(input);
  const lat = run.summary.latencyUs;
  const it = run.summary.iterations;
  const header = `<h1>${esc(run.name)} ${verdictBadge(f.thresholdsPassed && f.auditPassed !== false)}</h1>
<p class="sub">started ${esc(run.startedAt)} · ${esc((run.durationMs / 1000).toFixed(1))} s · ${esc(
    run.options.scenario.executor,
  )} against ${esc(run.options.target)} · ${esc(input.machine ?? run.machine ?? "")}</p>`;
  const cards = [
    card("offered", `${fmtNum(f.offeredPerSecond, 1)}/s`),
    card("achieved", `${fmtNum(f.achievedPerSecond, 1)}/s`),
    card("iterations started", fmtNum(it.started)),
    card("dropped iterations", fmtNum(it.dropped), it.dropped > 0 ? "bad" : ""),
    card("p50 / p99", `${fmtUs(lat?.p50)} / ${fmtUs(lat?.p99)}`),
    card("max latency", fmtUs(lat?.max)),
    card("failed requests", fmtPct(f.failedRate), f.failedRate > 0 ? "bad" : "ok"),
    card(
      "2xx during faults",
      fmtPct(f.availabilityDuringFaults),
      f.availabilityDuringFaults === 1 ? "ok" : "",
    ),
    card("recovery (healed → backlog drained)", fmtMs(f.recoveryMs)),
    card("API recovery (healed → ≥99% 2xx)", fmtMs(f.apiRecoveryMs)),
    card("duplicate rate", fmtPct(f.duplicateRate, 3)),
    card("thresholds", verdictBadge(f.thresholdsPassed)),
    card("audit", verdictBadge(f.auditPassed)),
  ].join("");
  const damageRows = Object.entries(f.damage ?? {})
    .map(([k, v]) => `<tr><td>${esc(k)}</td><td class="num">${esc(fmtDamageValue(v))}</td></tr>`)
    .join("");
  const damage = f.damage
    ? `<h2>Damage, in this scenario's own terms</h2><table id="damage"><tbody>${damageRows}</tbody></table>`
    : "";
  const brokerRows = Object.entries(f.broker ?? {})
    .map(([k, v]) => `<tr><td>${esc(k)}</td><td class="num">${esc(fmtDamageValue(v))}</td></tr>`)
    .join("");
  const broker = f.broker
    ? `<h2>At the broker: the probe's own messages</h2><p class="note">Published with confirms into a quorum queue of the probe's own and drained after the heal: a confirmed message never delivered is lost; one delivered but never published is unexpected; an unconfirmed one delivered anyway is recovered.</p><table id="broker"><tbody>${brokerRows}</tbody></table>`
    : "";
  const audit = input.audit
    ? `${damage}${broker}<h2>Audit verdict ${verdictBadge(f.auditPassed)}</h2><div id="audit">${jsonBlock(input.audit)}</div>`
    : `<h2>Audit verdict</h2><p class="note">No audit verdict was given for this run.</p>`;
  const body = `${header}
<div class="cards" id="cards">${cards}</div>
<h2>Charts</h2>
<p class="note">Dashed orange lines are marked events; shaded spans run from "fault injected" to "fault healed";
violet lines labelled at the bottom are alerts reaching Alertmanager (solid) and resolving (dotted).
Outcomes and latencies belong to the second a request was meant to start, so a stall shows where it happened.</p>
${charts(input)}
<h2>Thresholds</h2>
${thresholdsTable(run)}
<h2>Events</h2>
${eventsTable(run, input.alerts ?? [])}
<h2>In flight when each fault hit</h2>
${inFlightTable(input.inFlight)}
<h2>Alerts</h2>
${alertsTable(input.alerts)}
${audit}
<h2>Run options</h2>
${jsonBlock(run.options)}
<p class="note">Written by @orderflow/load; self-contained (no external resources).</p>`;
  return page(`${run.name}: load report`, body);
}
