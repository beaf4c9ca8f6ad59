// Retry delays for messages the broker refused (unroutable, nacked, too large). An outage is not a
// refusal and never goes through here: it only closes the health gate.

export const DEFAULT_BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000];

/**
 * Delay before the next attempt after `failedAttempts` refusals, or undefined when the schedule is
 * exhausted and the row must fail. Jitter spreads a burst of refusals so they do not return together.
 */
export function nextRetryDelayMs(
  failedAttempts: number,
  schedule: readonly number[] = DEFAULT_BACKOFF_MS,
  jitter = 0.2,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[failedAttempts - 1];
  if (base === undefined) return undefined;
  return Math.max(0, Math.round(base * (1 + jitter * (2 * random() - 1))));
}
