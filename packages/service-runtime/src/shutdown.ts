// Signals: the first SIGTERM/SIGINT shuts down gracefully with a timer that turns forceful; a second
// signal is forceful at once (graphile-worker's rule). `shutdown` must be safe to call twice.
import type { Log } from "@orderflow/outbox";

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
