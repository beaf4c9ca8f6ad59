// What the fault-lab scenarios import.
export type { ExecutorOptions, RunOptions } from "./config.ts";
export type { RequestSpec } from "./http.ts";
export { createJsonlWriter, type LedgerEntry, readJsonl, recordSuccesses } from "./ledger.ts";
export { describeMachine } from "./machine.ts";
export type { AuditVerdict, ExtraSeries } from "./report/derive.ts";
export { type ReportInput, renderReport, reportFigures } from "./report/render-report.ts";
export { renderSummaryHtml, renderSummaryMarkdown } from "./report/summary-table.ts";
export { writeJson, writeReport, writeSummary } from "./report/write-report.ts";
export type { RunEvent, RunResult, TimelineSecond } from "./result.ts";
export { type LoadRun, type RequestFn, runLoad, startLoad } from "./runner.ts";
