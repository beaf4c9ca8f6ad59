// @ts-check
// Where the system under load is and how a run is shaped, from k6's __ENV only (`-e NAME=value` or the
// environment), so the same script runs against the local stack and inside compose.

/**
 * @typedef {object} RunConfig
 * @property {string} orderUrl
 * @property {string} inventoryUrl
 * @property {string} controlUrl
 * @property {string} controlToken
 * @property {number | undefined} rate orders per second instead of the definition's
 * @property {number | undefined} durationS the run's length instead of the definition's
 * @property {number | undefined} faultHoldS a cap on every fault's own length (short demo runs)
 * @property {number | undefined} settleS how long teardown lets the system settle instead of the definition's
 * @property {string} summaryDir where handleSummary writes <scenario>-summary.json
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
    orderUrl: trim(env.ORDER_URL || "http://127.0.0.1:3001"),
    inventoryUrl: trim(env.INVENTORY_URL || "http://127.0.0.1:3002"),
    controlUrl: trim(env.CONTROL_URL || "http://127.0.0.1:17080"),
    controlToken: env.CONTROL_TOKEN || "",
    rate: positive(env.RATE, "RATE"),
    durationS: env.DURATION ? parseDurationS(env.DURATION) : undefined,
    faultHoldS: positive(env.FAULT_HOLD_S, "FAULT_HOLD_S"),
    settleS: positive(env.SETTLE_S, "SETTLE_S"),
    summaryDir: env.SUMMARY_DIR || ".",
  };
}
