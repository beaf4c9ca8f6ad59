// The line printed each second of a run, so a long run shows it is alive and how it is doing.
import type { Progress } from "./runner.ts";

export function formatProgress(p: Progress): string {
  const p99 =
    p.p99Us === null
      ? "-"
      : p.p99Us >= 1_000_000
        ? `${(p.p99Us / 1e6).toFixed(2)}s`
        : `${(p.p99Us / 1000).toFixed(1)}ms`;
  return [
    `[${String(p.second + 1).padStart(4)}s]`,
    `offered ${String(p.offered).padStart(5)}/s`,
    `achieved ${String(p.completed).padStart(5)}/s`,
    `in-flight ${String(p.inFlight).padStart(4)}`,
    `dropped ${String(p.dropped).padStart(4)}`,
    `p99 ${p99.padStart(8)}`,
    `errors ${p.errors}`,
    ...(p.oldestInFlightMs !== null && p.oldestInFlightMs >= 1000
      ? [`oldest in flight ${(p.oldestInFlightMs / 1000).toFixed(1)}s`]
      : []),
  ].join("  ");
}
