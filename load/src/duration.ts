// k6 writes durations as "30s", "1m30s", "500ms", "2h"; a bare number means milliseconds here.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(value: string | number, what = "duration"): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) throw new Error(`${what} must be a non-negative number of ms`);
    return value;
  }
  const text = value.trim();
  if (text === "" || !/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) {
    throw new Error(`${what} "${value}" is not a k6 duration like "30s", "1m30s" or "500ms"`);
  }
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(part[1]) * (UNIT_MS[part[2] ?? "ms"] ?? 1);
  }
  return total;
}
