// Signals: the first SIGTERM/SIGINT shuts down gracefully with a timer that turns forceful; a second
// signal is forceful at once (graphile-worker's rule). `shutdown` must be safe to call twice.
import type { Log } from "@orderflow/outbox";

/**
 * Runs one shutdown step and logs its duration when done: after a hang, the step after the last one
 * logged is the one that hung.
 */
export async function shutdownStep(log: Log, name: string, fn: () => Promise<unknown>): Promise<void> {
  const t0 = Date.now();
  await fn();
  log("info", "shutdown.step", { step: name, ms: Date.now() - t0 });
}

export function onShutdownSignals(shutdown: () => Promise<void>, opts: { log: Log; graceMs?: number }): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      opts.log("warn", "shutdown.forced", { signal });
      process.exit(1);
    }
    stopping = true;
    opts.log("info", "shutdown.begin", { signal });
    const timer = setTimeout(() => {
      opts.log("error", "shutdown.timeout", { graceMs: opts.graceMs ?? 20_000 });
      process.exit(1);
    }, opts.graceMs ?? 20_000);
    timer.unref();
    shutdown().then(
      () => {
        opts.log("info", "shutdown.done");
        process.exit(0);
      },
      (e: unknown) => {
        opts.log("error", "shutdown.failed", { error: (e as Error).message });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}
