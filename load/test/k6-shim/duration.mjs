// k6 duration strings ("30s", "1m30s", "500ms") -> ms, for the shim's timeouts.

/** @param {string} text */
export function parseDurationMs(text) {
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0) throw new Error(`shim: not a duration "${text}"`);
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u], 0);
}
