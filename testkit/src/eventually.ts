// Tests wait by polling with a deadline, never by sleeping a fixed time and hoping it was long enough.
// The polling itself is the stack's own (infra/src/proc.ts `waitFor`, which `pnpm stack up` waits with):
// one implementation, here given the defaults that suit a test.
import { waitFor } from "@orderflow/infra";

export interface EventuallyOptions {
  /** How long to keep trying. Default 60000. */
  timeoutMs?: number;
  /** The pause between two tries. Default 50. */
  intervalMs?: number;
}

/**
 * Calls `check` until it returns a value other than `undefined` or `false`, and resolves with that value.
 * A check that throws (a failed `expect`, a refused connection) is tried again. After the deadline it
 * rejects with an error that names `what` and the last failure the check threw.
 */
export function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 60_000, intervalMs = 50 }: EventuallyOptions = {},
): Promise<T> {
  return waitFor(what, check, { timeoutMs, intervalMs });
}

/** Lets `ms` pass, to check that something does NOT happen within that window. */
export function observeFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
