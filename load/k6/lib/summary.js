// @ts-check
// handleSummary: the whole end-of-test summary as JSON (<SUMMARY_DIR>/<scenario>-summary.json) and a
// few lines on stdout: the thresholds and whether each held.

/**
 * @typedef {{ type?: string, values: Record<string, number>, thresholds?: Record<string, { ok: boolean }> }} SummaryMetric
 * @typedef {{ metrics: Record<string, SummaryMetric>, [key: string]: unknown }} SummaryData
 */

/**
 * @param {import("./timeline.js").ScenarioDefinition} def
 * @param {import("./config.js").RunConfig} cfg
 * @param {{ runS: number, rate: number, settleS: number, firings: import("./timeline.js").Firing[] }} run
 */
export function summaryFiles(def, cfg, run) {
  /** @param {SummaryData} data */
  return (data) => {
    const thresholds = Object.entries(data.metrics).flatMap(([metric, m]) =>
      Object.entries(m.thresholds ?? {}).map(([t, r]) => ({ metric, threshold: t, ok: r.ok })),
    );
    const passed = thresholds.every((t) => t.ok);
    const lines = [
      `${def.name}: ${passed ? "every threshold held" : "THRESHOLDS FAILED"} (${run.rate}/s for ${run.runS}s)`,
      ...thresholds.map((t) => `  ${t.ok ? "ok  " : "FAIL"} ${t.metric} ${t.threshold}`),
    ];
    const file = `${cfg.summaryDir}/${def.name}-summary.json`;
    return {
      [file]: JSON.stringify({ scenario: def.name, passed, run, thresholds, ...data }, null, 2),
      stdout: `${lines.join("\n")}\nsummary: ${file}\n`,
    };
  };
}
