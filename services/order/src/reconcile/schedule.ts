// Runs reconciliation and the invariant check on a schedule, with metrics; exposes both for on-demand use.
import type { Logger } from "@orderflow/logging";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Db, Tx } from "../db.ts";
import type { OrderEnv } from "../env.ts";
import { checkInvariants, checkInvariantsOnceSettled, type InvariantReport } from "./invariants.ts";
import { httpPeers, type Peers } from "./peers.ts";
import { repairStaleOrders } from "./repair-stale-orders.ts";
import { type OrphanReport, reverseOrphans } from "./reverse-orphans.ts";

type PassResult = Awaited<ReturnType<typeof repairStaleOrders>> & { orphans?: OrphanReport };

export interface Reconciliation {
  /**
   * One pass; `staleAfterMs` overrides the configured threshold, `orderId` narrows it to one order (and
   * leaves out the scan for effects without an order).
   */
  runOnce(staleAfterMs?: number, orderId?: string): Promise<PassResult>;
  invariants(): Promise<InvariantReport>;
  stop(): void;
}

export function startReconciliation(deps: {
  db: Db;
  runtime: Pick<ServiceRuntime<Tx>, "relay" | "inTransaction">;
  env: Pick<OrderEnv, "reconcile" | "inventoryUrl" | "pointsUrl">;
  log: Logger;
  metrics: Registry;
  peers?: Peers;
  schedule?: boolean;
}): Reconciliation {
  const peers = deps.peers ?? httpPeers(deps.env.inventoryUrl, deps.env.pointsUrl);
  const repairs = new Counter({
    name: "order_reconciliation_repairs_total",
    help: "Orders repaired by reconciliation, by kind of repair",
    labelNames: ["kind"],
    registers: [deps.metrics],
  });
  const gaveUp = new Counter({
    name: "order_reconciliation_gave_up_total",
    help: "Orders and orphaned effects reconciliation stopped repairing after RECONCILE_MAX_REPAIRS repairs (needs a person)",
    registers: [deps.metrics],
  });
  const orphans = new Counter({
    name: "order_reconciliation_orphans_total",
    help: "Effects in inventory or points found with no order here (forged or escaped events), by peer",
    labelNames: ["source"],
    registers: [deps.metrics],
  });
  const violations = new Gauge({
    name: "order_invariant_violations",
    help: "Violations found by the last stock-and-points invariant check (settled systems only)",
    registers: [deps.metrics],
  });
  const repairStale = (staleAfterMs?: number, orderId?: string) =>
    repairStaleOrders(
      {
        db: deps.db,
        peers,
        log: deps.log,
        wake: () => deps.runtime.relay.wake(),
        onRepair: (kind) => repairs.inc({ kind }),
        onGiveUp: () => gaveUp.inc(),
      },
      { ...deps.env.reconcile, ...(staleAfterMs !== undefined ? { staleAfterMs } : {}), orderId },
    );
  const runOnce = async (staleAfterMs?: number, orderId?: string): Promise<PassResult> => {
    const result = await repairStale(staleAfterMs, orderId);
    if (orderId !== undefined) return result;
    const c = deps.env.reconcile;
    const orphanReport = await reverseOrphans(
      {
        db: deps.db,
        peers,
        log: deps.log,
        runtime: deps.runtime,
        onOrphan: (source) => orphans.inc({ source }),
        onGiveUp: () => gaveUp.inc(),
      },
      { staleAfterMs: staleAfterMs ?? c.staleAfterMs, batchSize: c.batchSize, maxRepairs: c.maxRepairs },
    );
    return { ...result, orphans: orphanReport };
  };
  const record = (report: InvariantReport) => {
    if (report.settled) violations.set(report.violations.length);
    if (!report.ok) deps.log[report.settled ? "error" : "info"]({ ...report }, "invariants.violated");
    return report;
  };
  const invariants = async () =>
    record(await checkInvariants(deps.db, peers, deps.env.reconcile.staleAfterMs));
  const timer =
    deps.schedule === false
      ? undefined
      : setInterval(() => {
          runOnce()
            .then(() => checkInvariantsOnceSettled(deps.db, peers, deps.env.reconcile.staleAfterMs))
            .then((report) => report && record(report))
            .catch((e: unknown) => deps.log.error({ error: (e as Error).message }, "reconcile.run_failed"));
        }, deps.env.reconcile.intervalMs);
  timer?.unref();
  return { runOnce, invariants, stop: () => timer && clearInterval(timer) };
}
