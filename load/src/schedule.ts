// When each iteration of an arrival-rate executor is meant to start. Pure: the runner asks for the
// next intended offset and compares it with the clock, so a late timer never lowers the offered rate.

/** A piece of the rate curve: the rate goes linearly from `fromPerMs` to `toPerMs` over `durationMs`. */
export interface RateSegment {
  fromPerMs: number;
  toPerMs: number;
  durationMs: number;
}

export function constantSegments(ratePerMs: number, durationMs: number): RateSegment[] {
  return [{ fromPerMs: ratePerMs, toPerMs: ratePerMs, durationMs }];
}

/** k6's ramping-arrival-rate: each stage moves linearly from the previous target to its own. */
export function rampingSegments(
  startPerMs: number,
  stages: ReadonlyArray<{ targetPerMs: number; durationMs: number }>,
): RateSegment[] {
  let from = startPerMs;
  return stages.map((stage) => {
    const segment = { fromPerMs: from, toPerMs: stage.targetPerMs, durationMs: stage.durationMs };
    from = stage.targetPerMs;
    return segment;
  });
}

export function totalDurationMs(segments: readonly RateSegment[]): number {
  return segments.reduce((sum, s) => sum + s.durationMs, 0);
}

export function expectedIterations(segments: readonly RateSegment[]): number {
  return segments.reduce((sum, s) => sum + ((s.fromPerMs + s.toPerMs) / 2) * s.durationMs, 0);
}

/**
 * Offsets (ms from the start) at which iterations 0, 1, 2, ... are meant to start: iteration n starts
 * when the integral of the rate reaches n. Within a linear segment the integral is
 * a*t + k*t^2 with k = (b - a) / (2D); t = 2m / (a + sqrt(a^2 + 4km)) solves it without the
 * cancellation the textbook formula suffers when k is tiny, and covers k = 0 and falling rates.
 */
export function* intendedOffsets(segments: readonly RateSegment[]): Generator<number, void, undefined> {
  let n = 0;
  let segmentStartMs = 0;
  let countAtSegmentStart = 0;
  for (const s of segments) {
    const a = s.fromPerMs;
    const k = s.durationMs === 0 ? 0 : (s.toPerMs - a) / (2 * s.durationMs);
    const countInSegment = ((a + s.toPerMs) / 2) * s.durationMs;
    // Bounded by the segment's own expected count.
    while (n - countAtSegmentStart < countInSegment) {
      const m = n - countAtSegmentStart;
      const root = Math.sqrt(Math.max(0, a * a + 4 * k * m));
      const t = m === 0 ? 0 : (2 * m) / (a + root);
      if (!(t <= s.durationMs)) break;
      yield segmentStartMs + t;
      n++;
    }
    segmentStartMs += s.durationMs;
    countAtSegmentStart += countInSegment;
  }
}
