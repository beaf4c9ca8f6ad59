// The table across scenarios that `pnpm fault all` prints (Markdown, for the README and CI logs) and
// writes (HTML, self-contained, beside each scenario's own report).
import { alertsFired } from "./alert-marks.ts";
import { esc, fmtBroker, fmtDamage, fmtMs, fmtNum, fmtPct, page } from "./html.ts";
import { inFlightCell } from "./in-flight.ts";
import { type ReportFigures, type ReportInput, reportFigures } from "./render-report.ts";

interface Column {
  title: string;
  numeric: boolean;
  value: (f: ReportFigures, input: ReportInput) => string;
}

const verdict = (ok: boolean | null) => (ok === null ? "—" : ok ? "pass" : "FAIL");

const COLUMNS: Column[] = [
  { title: "scenario", numeric: false, value: (f) => f.name },
  { title: "thresholds", numeric: false, value: (f) => verdict(f.thresholdsPassed) },
  { title: "audit", numeric: false, value: (f) => verdict(f.auditPassed) },
  { title: "offered/s", numeric: true, value: (f) => fmtNum(f.offeredPerSecond, 1) },
  { title: "achieved/s", numeric: true, value: (f) => fmtNum(f.achievedPerSecond, 1) },
  { title: "p99", numeric: true, value: (f) => fmtMs(f.p99Ms) },
  { title: "max", numeric: true, value: (f) => fmtMs(f.maxMs) },
  { title: "failed", numeric: true, value: (f) => fmtPct(f.failedRate) },
  { title: "dropped", numeric: true, value: (f) => fmtNum(f.dropped) },
  { title: "2xx during faults", numeric: true, value: (f) => fmtPct(f.availabilityDuringFaults) },
  { title: "in flight at fault", numeric: false, value: (_f, input) => inFlightCell(input.inFlight) },
  { title: "recovery", numeric: true, value: (f) => fmtMs(f.recoveryMs) },
  { title: "duplicate rate", numeric: true, value: (f) => fmtPct(f.duplicateRate, 3) },
  { title: "alerts fired", numeric: false, value: (_f, input) => alertsFired(input.alerts) },
  { title: "damage (own terms)", numeric: false, value: (f) => fmtDamage(f.damage) },
  { title: "broker (probe)", numeric: false, value: (f) => fmtBroker(f.broker) },
];

export function summaryFigures(runs: readonly ReportInput[]): ReportFigures[] {
  return runs.map(reportFigures);
}

export function renderSummaryMarkdown(runs: readonly ReportInput[], machine?: string): string {
  const figures = summaryFigures(runs);
  const cell = (s: string) => s.replaceAll("|", "\\|");
  const lines = [
    `| ${COLUMNS.map((c) => c.title).join(" | ")} |`,
    `| ${COLUMNS.map((c) => (c.numeric ? "---:" : "---")).join(" | ")} |`,
    ...figures.map(
      (f, i) => `| ${COLUMNS.map((c) => cell(c.value(f, runs[i] as ReportInput))).join(" | ")} |`,
    ),
  ];
  const where = machine ?? runs[0]?.run.machine;
  if (where) lines.push("", `Machine: ${where}`);
  return `${lines.join("\n")}\n`;
}

export function renderSummaryHtml(
  runs: readonly ReportInput[],
  o: { machine?: string; links?: Array<string | undefined> } = {},
): string {
  const figures = summaryFigures(runs);
  const head = COLUMNS.map((c) => `<th${c.numeric ? ' class="num"' : ""}>${esc(c.title)}</th>`).join("");
  const rows = figures
    .map((f, i) => {
      const cells = COLUMNS.map((c, j) => {
        const text = esc(c.value(f, runs[i] as ReportInput));
        const link = o.links?.[i];
        const content = j === 0 && link ? `<a href="${esc(link)}">${text}</a>` : text;
        const bad = text === "FAIL" ? " bad" : text === "pass" ? " ok" : "";
        return `<td class="${c.numeric ? "num" : ""}${bad}">${content}</td>`;
      }).join("");
      return `<tr>${cells}</tr>`;
    })
    .join("");
  const allPassed = figures.every((f) => f.thresholdsPassed && f.auditPassed !== false);
  const body = `<h1>Fault lab summary <span class="badge ${allPassed ? "ok" : "bad"}">${allPassed ? "ALL PASS" : "FAILURES"}</span></h1>
<p class="sub">${figures.length} scenario(s) · ${esc(o.machine ?? runs[0]?.run.machine ?? "")}</p>
<table id="summary"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>
<p class="note">recovery: fault healed → backlog drained (the audit's figure when it gives one).</p>`;
  return page("Fault lab summary", body);
}
