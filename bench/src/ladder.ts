// The step ladder: offered rates tried in increasing order, stopping at the first step that falls behind.
// The sustained rate is the last step that kept up (0 when even the first did not).

/** Up to 600 orders/s: finer where the one-message-per-transaction configuration is expected to stop, and no step above 100/s more than a quarter over the one before it up to 400/s. */
export const LADDER = [10, 20, 40, 60, 80, 100, 125, 150, 200, 250, 300, 350, 400, 500, 600] as const;
export const QUICK_LADDER = [10, 20, 40, 80, 150, 250, 400, 600] as const;

export interface Climb<S> {
  steps: S[];
  sustained: number;
  /** Every rate of the ladder kept up: the sustained rate is a lower bound. */
  keptUpAtEveryStep: boolean;
}

/** Runs `step` for each rate in turn (at most `rates.length` steps), stopping after the first that fell behind. */
export async function climb<S extends { rate: number; keptUp: boolean }>(
  rates: readonly number[],
  step: (rate: number) => Promise<S>,
): Promise<Climb<S>> {
  const steps: S[] = [];
  let sustained = 0;
  for (const rate of rates) {
    const s = await step(rate);
    steps.push(s);
    if (!s.keptUp) break;
    sustained = rate;
  }
  return {
    steps,
    sustained,
    keptUpAtEveryStep: rates.length > 0 && steps.length === rates.length && steps.every((s) => s.keptUp),
  };
}

/** "10:ok 20:ok 40:behind", the ladder as the table shows it. */
export const ladderText = (steps: readonly { rate: number; keptUp: boolean }[]): string =>
  steps.map((s) => `${s.rate}:${s.keptUp ? "ok" : "behind"}`).join(" ");
