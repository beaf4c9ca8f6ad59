// order_final_seconds{status}: how long an order waited for the saga's verdict, from its creation
// (created_at, the POST /orders commit) to the step that moved it out of PENDING (CONFIRMED, or
// CANCELLED for a rejection). What a customer waits for; the dashboards show its p50 and p99.
// Observed inside the step's transaction: a commit that fails after the step would count the order
// again when the redelivery confirms it, a rare overcount preferred to an after-commit hook every step
// would need.
import { Histogram, type Registry } from "prom-client";

export type FinalStatus = "CONFIRMED" | "CANCELLED";

export interface FinalLatency {
  reached(status: FinalStatus, createdAt: Date): void;
  /** The histogram joins the service's registry once the runtime has made it. */
  register(registry: Registry): void;
}

export function createFinalLatency(): FinalLatency {
  const seconds = new Histogram({
    name: "order_final_seconds",
    help: "From an order's creation to its final state (CONFIRMED or CANCELLED by the saga)",
    labelNames: ["status"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [],
  });
  return {
    reached(status, createdAt) {
      seconds.observe({ status }, Math.max(0, Date.now() - createdAt.getTime()) / 1000);
    },
    register(registry) {
      registry.registerMetric(seconds);
    },
  };
}
