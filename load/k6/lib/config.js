// @ts-check
// Where the system under load is and how a run is shaped, from k6's __ENV only (`-e NAME=value` or the
// environment), so the same script runs against the local stack and inside compose.

/**
 * @typedef {object} RunConfig
 * @property {string[]} orderUrls the order service's instances (ORDER_URL, comma-separated), used in turn
 * @property {string} inventoryUrl
 * @property {string} controlUrl
 * @property {string} controlToken
 * @property {number | undefined} rate orders per second instead of the definition's
 * @property {number | undefined} durationS the run's length instead of the definition's
 * @property {number | undefined} faultHoldS a cap on every fault's own length (short demo runs)
 * @property {number | undefined} settleS how long teardown lets the system settle instead of the definition's
 * @property {string} summaryDir where handleSummary writes <scenario>-summary.json
 * @property {string | undefined} testId the run's `testid` tag instead of <scenario>-<start time>
 */

/** "90", "90s", "1m30s", "2m", "500ms" -> seconds. @param {string} text */
export function parseDurationS(text) {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const parts = text.match(/(\d+(?:\.\d+)?)(ms|s|m|h)/g);
  if (!parts || parts.join("") !== text) throw new Error(`not a duration: "${text}" (use 20s, 1m30s...)`);
  const unit = /** @type {Record<string, number>} */ ({ ms: 0.001, s: 1, m: 60, h: 3600 });
  return parts.reduce((sum, p) => {
    const [, n, u] = /** @type {RegExpMatchArray} */ (p.match(/(\d+(?:\.\d+)?)(ms|s|m|h)/));
    return sum + Number(n) * (unit[/** @type {string} */ (u)] ?? 0);
  }, 0);
}

/** @param {string | undefined} v @param {string} name */
function positive(v, name) {
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!(Number.isFinite(n) && n > 0)) throw new Error(`${name} must be a number above 0, got "${v}"`);
  return n;
}

/** @param {Record<string, string | undefined>} env @returns {RunConfig} */
export function readConfig(env) {
  const trim = (/** @type {string} */ u) => u.replace(/\/+$/, "");
  return {
    orderUrls: (env.ORDER_URL || "http://127.0.0.1:3001")
      .split(",")
      .map((u) => trim(u.trim()))
      .filter(Boolean),
    inventoryUrl: trim(env.INVENTORY_URL || "http://127.0.0.1:3002"),
    controlUrl: trim(env.CONTROL_URL || "http://127.0.0.1:17080"),
    controlToken: env.CONTROL_TOKEN || "",
    rate: positive(env.RATE, "RATE"),
    durationS: env.DURATION ? parseDurationS(env.DURATION) : undefined,
    faultHoldS: positive(env.FAULT_HOLD_S, "FAULT_HOLD_S"),
    settleS: positive(env.SETTLE_S, "SETTLE_S"),
    summaryDir: env.SUMMARY_DIR || ".",
    testId: env.TESTID || undefined,
  };
}

/**
 * The run's `testid` tag, on every metric it sends (Grafana's k6 dashboard picks runs by it): TESTID as
 * given, else the scenario and the UTC time the run started, e.g. broker-outage-20261206T101500Z.
 * @param {string} scenario @param {RunConfig} cfg @param {Date} now
 */
export function testIdOf(scenario, cfg, now) {
  if (cfg.testId !== undefined) {
    if (!/^[A-Za-z0-9._:-]{1,64}$/.test(cfg.testId))
      throw new Error(`TESTID must be 1-64 characters of A-Z a-z 0-9 . _ : -, got "${cfg.testId}"`);
    return cfg.testId;
  }
  // 2026-12-06T10:15:00.123Z -> 20261206T101500Z
  const start = now.toISOString().replace(/\.\d+Z$|[-:]/g, "");
  return `${scenario}-${start}Z`;
}
