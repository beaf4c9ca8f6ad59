// k6 threshold expressions ("p(99)<2000", "rate<0.01", "count<10") over this runner's metrics.
// Parsed before the run starts, as k6 does, so a typo fails fast instead of after ten minutes of load.

export interface ThresholdResult {
  metric: string;
  expression: string;
  /** The measured value the expression compared; null when the metric had no samples. */
  actual: number | null;
  ok: boolean;
}

type Operator = "<" | "<=" | ">" | ">=" | "==" | "===" | "!=";

export interface ParsedThreshold {
  metric: string;
  expression: string;
  aggregation: string;
  percentile?: number;
  operator: Operator;
  bound: number;
}

/** Which aggregations each metric has, after k6's metric types (trend, rate, counter). */
const METRICS: Record<string, readonly string[]> = {
  // Trend, in milliseconds; here measured from the intended start, not the send.
  http_req_duration: ["avg", "min", "med", "max", "p"],
  http_req_failed: ["rate"],
  http_reqs: ["count", "rate"],
  iterations: ["count", "rate"],
  dropped_iterations: ["count", "rate"],
};

const EXPRESSION =
  /^\s*(avg|min|med|max|count|rate|p\((\d+(?:\.\d+)?)\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

export function parseThresholds(spec: Record<string, string[]> | undefined): ParsedThreshold[] {
  const parsed: ParsedThreshold[] = [];
  for (const [metric, expressions] of Object.entries(spec ?? {})) {
    const allowed = METRICS[metric];
    if (!allowed) {
      throw new Error(`threshold on unknown metric "${metric}"; known: ${Object.keys(METRICS).join(", ")}`);
    }
    if (!Array.isArray(expressions)) throw new Error(`thresholds.${metric} must be a list of expressions`);
    for (const expression of expressions) {
      const m = EXPRESSION.exec(expression);
      if (!m)
        throw new Error(`threshold "${expression}" on ${metric} is not like "p(99)<2000" or "rate<0.01"`);
      const aggregation = m[2] === undefined ? (m[1] as string) : "p";
      if (!allowed.includes(aggregation)) {
        throw new Error(`${metric} has no "${aggregation}"; use one of ${allowed.join(", ")}`);
      }
      const percentile = m[2] === undefined ? undefined : Number(m[2]);
      if (percentile !== undefined && percentile > 100)
        throw new Error(`percentile in "${expression}" > 100`);
      parsed.push({
        metric,
        expression,
        aggregation,
        ...(percentile === undefined ? {} : { percentile }),
        operator: m[3] as Operator,
        bound: Number(m[4]),
      });
    }
  }
  return parsed;
}

/** Looks up a measured value; undefined when there were no samples. */
export type MetricValue = (metric: string, aggregation: string, percentile?: number) => number | undefined;

function compare(actual: number, op: Operator, bound: number): boolean {
  switch (op) {
    case "<":
      return actual < bound;
    case "<=":
      return actual <= bound;
    case ">":
      return actual > bound;
    case ">=":
      return actual >= bound;
    case "==":
    case "===":
      return actual === bound;
    case "!=":
      return actual !== bound;
  }
}

export function evaluateThresholds(
  parsed: readonly ParsedThreshold[],
  value: MetricValue,
): ThresholdResult[] {
  return parsed.map((t) => {
    const actual = value(t.metric, t.aggregation, t.percentile);
    // A trend with no samples cannot be judged and passes; counters and rates always have a value.
    return {
      metric: t.metric,
      expression: t.expression,
      actual: actual ?? null,
      ok: actual === undefined ? true : compare(actual, t.operator, t.bound),
    };
  });
}
