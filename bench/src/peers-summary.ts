// bench.json's top-level `peers`: one row per contender and orderflow's throughput over the best peer's.
// Pure, so the shape and the ratio are unit-tested.
import { ratio } from "./stats.ts";

/** The offered rates of the open-model latency runs, events/s. */
export const PEER_RATES = [200, 1_000] as const;

/** orderflow is measured, the peers are what it is compared with, the seed design is the baseline. */
export type PeerRole = "orderflow" | "peer" | "baseline";

export interface PeerLatency {
  p50Ms: number;
  p99Ms: number;
  /** Business transactions committed per second: below the offered rate when the writes themselves saturate the machine. */
  achievedPerSecond: number;
}

export interface PeerRow {
  name: string;
  version: string;
  role: PeerRole;
  /** Median burn-down throughput of the backlog, events delivered to the consumer per second. */
  eventsPerSecond: number;
  /** At 1,000 events/s offered; null when the contender's burn-down is below that rate (not run). */
  p50Ms: number | null;
  p99Ms: number | null;
  /** Each offered rate's p50/p99 (median of repeats), null where not run. */
  latency: Record<string, PeerLatency | null>;
  /** CPU ms per 1,000 events over the burn-down, per process group, and their total. */
  cpuMsPerThousand: Record<string, number>;
  /** Over every run of the contender, counted at the consumer. */
  lost: number;
  duplicated: number;
}

/** The best peer's throughput (the seed is not a peer); NaN when no peer has a row. */
export function orderflowOverBestPeer(rows: readonly PeerRow[]): number {
  const orderflow = rows.find((r) => r.role === "orderflow");
  const peers = rows.filter((r) => r.role === "peer" && Number.isFinite(r.eventsPerSecond));
  if (!orderflow || peers.length === 0) return Number.NaN;
  return ratio(orderflow.eventsPerSecond, Math.max(...peers.map((r) => r.eventsPerSecond)));
}

export function peersSummary(rows: PeerRow[]): { rows: PeerRow[]; orderflowOverBestPeer: number } {
  return { rows, orderflowOverBestPeer: orderflowOverBestPeer(rows) };
}

/** Process group -> CPU seconds over a run, as ms per 1,000 events, with their total. */
export function cpuPerThousand(cpuSeconds: Record<string, number>, events: number): Record<string, number> {
  const per = (s: number) => (events > 0 ? (s * 1_000_000) / events : Number.NaN);
  const out = Object.fromEntries(Object.entries(cpuSeconds).map(([k, s]) => [k, per(s)]));
  return { ...out, total: per(Object.values(cpuSeconds).reduce((a, b) => a + b, 0)) };
}
