// A concurrency limit for the consumer's transactions. The broker delivers up to `prefetch` (100)
// messages at once, which quorum queues need for throughput; running 100 database transactions at once
// would only queue them inside the pool, where they time out ("unable to start a transaction") and
// starve the HTTP path. Here they wait in order, without a deadline, for one of `n` slots.
export function limitConcurrency(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
