// Waits by polling a condition with a deadline, so tests never rely on a sleep being long enough.
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets `ms` pass, to check that something does NOT happen within that window. */
export function observeFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
