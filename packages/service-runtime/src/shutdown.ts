// Signals: the first SIGTERM/SIGINT shuts down gracefully with a timer that turns forceful; a second
// signal is forceful at once (graphile-worker's rule). `shutdown` must be safe to call twice.
import type { Logger } from "@orderflow/logging";

/**
 * Runs one shutdown step and logs its duration when done: after a hang, the step after the last one
 * logged is the one that hung.
 */
export async function shutdownStep(log: Logger, name: string, fn: () => Promise<unknown>): Promise<void> {
  const t0 = Date.now();
  await fn();
  log.info({ step: name, ms: Date.now() - t0 }, "shutdown.step");
}

export function onShutdownSignals(
  shutdown: () => Promise<void>,
  opts: { log: Logger; graceMs?: number },
): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      opts.log.warn({ signal }, "shutdown.forced");
      process.exit(1);
    }
    stopping = true;
    opts.log.info({ signal }, "shutdown.begin");
    const timer = setTimeout(() => {
      opts.log.error({ graceMs: opts.graceMs ?? 20_000 }, "shutdown.timeout");
      process.exit(1);
    }, opts.graceMs ?? 20_000);
    timer.unref();
    shutdown().then(
      () => {
        opts.log.info("shutdown.done");
        process.exit(0);
      },
      (e: unknown) => {
        opts.log.error({ error: (e as Error).message }, "shutdown.failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}
