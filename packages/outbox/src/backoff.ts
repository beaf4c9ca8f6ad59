// Retry delays for messages the broker refused (unroutable, too large), and the wait after a nack (the
// queue said no, which is not the message's fault). An outage is not a refusal and never goes through here:
// it only closes the health gate.

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

const NACK_MIN_MS = 1_000;
const NACK_MAX_MS = 5 * 60_000;

/**
 * How long a row waits after an isolated nack. A nack is the queue's state (a member stopping or booting,
 * a queue full under reject-publish), never the message's, so it costs no attempt; but a queue that stays
 * full must not be hammered, so the wait grows with the row's age: a quarter of it, from 1 s to 5 min.
 */
export function nackDeferralMs(ageMs: number, jitter = 0.2, random: () => number = Math.random): number {
  const base = Math.min(NACK_MAX_MS, Math.max(NACK_MIN_MS, ageMs / 4));
  return Math.round(base * (1 + jitter * (2 * random() - 1)));
}
