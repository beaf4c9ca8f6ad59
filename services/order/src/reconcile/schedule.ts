// Runs reconciliation and the invariant check on a schedule, with metrics; exposes both for on-demand use.
import type { RunExclusive } from "@orderflow/db";
import type { Logger } from "@orderflow/logging";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Db, Tx } from "../db.ts";
import type { OrderEnv } from "../env.ts";
import { checkInvariants, checkInvariantsOnceSettled, type InvariantReport } from "./invariants.ts";
import { httpPeers, type Peers } from "./peers.ts";
import { repairStaleOrders } from "./repair-stale-orders.ts";
import { type OrphanReport, reverseOrphans } from "./reverse-orphans.ts";

const JOB = "order.reconciliation";

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
  env: Pick<OrderEnv, "reconcile" | "inventoryUrls" | "pointsUrls">;
  log: Logger;
  metrics: Registry;
  peers?: Peers;
  schedule?: boolean;
  /**
   * One pass at a time across the service's instances (run-service's advisory lock): two passes at once
   * would repair the same order twice and count its repairs twice. Absent: this process alone.
   */
  exclusive?: RunExclusive;
}): Reconciliation {
  const exclusive: RunExclusive =
    deps.exclusive ?? (async (_job, fn) => ({ ran: true as const, value: await fn() }));
  const peers = deps.peers ?? httpPeers(deps.env.inventoryUrls, deps.env.pointsUrls);
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
  const pass = async (staleAfterMs?: number, orderId?: string): Promise<PassResult> => {
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
  // Asked for (an operator, the lab): waits for another instance's pass to end rather than skip.
  const runOnce = async (staleAfterMs?: number, orderId?: string): Promise<PassResult> => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await exclusive(JOB, () => pass(staleAfterMs, orderId));
      if (r.ran) return r.value;
      if (Date.now() > deadline)
        throw new Error("another instance's reconciliation pass did not end in 120 s");
      await new Promise((res) => setTimeout(res, 250));
    }
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
          // On schedule, an instance that finds a pass running skips its turn: that pass does the work.
          exclusive(JOB, async () => {
            await pass();
            const report = await checkInvariantsOnceSettled(deps.db, peers, deps.env.reconcile.staleAfterMs);
            if (report) record(report);
          }).catch((e: unknown) => deps.log.error({ error: (e as Error).message }, "reconcile.run_failed"));
        }, deps.env.reconcile.intervalMs);
  timer?.unref();
  return { runOnce, invariants, stop: () => timer && clearInterval(timer) };
}
