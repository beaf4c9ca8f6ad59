// Reconciliation in the other direction: effects in inventory or points whose order does not exist here.
// They can only come from outside the saga (a forged event that the broker's permissions let through, a
// producer that published before its transaction committed), because an order row always commits
// before its events leave. Each peer's holding effects are scanned once, in creation order, once they
// are older than the staleness threshold (a persisted cursor per peer); an orphan is recorded, reported
// (log at error level, a counter to alert on) and reversed by an order.cancelled for it, which the peers
// apply like any cancellation. Past maxRepairs it is only reported.
import { randomUUID } from "node:crypto";
import { isUuid } from "@orderflow/contracts";
import type { Logger } from "@orderflow/logging";
import type { ServiceRuntime } from "@orderflow/service-runtime";
import type { Db, Tx } from "../db.ts";
import type { EffectSource, Peers } from "./peers.ts";

export interface OrphanDeps {
  db: Db;
  peers: Peers;
  log: Logger;
  runtime: Pick<ServiceRuntime<Tx>, "inTransaction" | "relay">;
  onOrphan: (source: EffectSource) => void;
  onGiveUp: () => void;
}

export interface OrphanReport {
  found: { orderId: string; source: EffectSource }[];
  reversed: string[];
  gaveUp: string[];
  /** Peers that could not be scanned or checked on this pass. */
  errors: string[];
}

const SOURCES: EffectSource[] = ["inventory", "points"];
const MAX_PAGES = 10;
export const ORPHAN_REASON = "reconciliation: no such order (orphaned effect)";

/** Scans one page of a peer's effects past its cursor; records (and returns) those with no order. */
async function scanSource(deps: OrphanDeps, source: EffectSource, before: string, batchSize: number) {
  const { db } = deps;
  const cursor = await db.reconcileCursor.findUnique({ where: { name: source } });
  const after = cursor ? { afterAt: cursor.afterAt.toISOString(), afterId: cursor.afterId } : undefined;
  const page = await deps.peers.heldEffects(source, { before, after, limit: batchSize });
  // Order ids are UUIDs: anything else is an orphan without asking.
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text AS id FROM orders WHERE id = ANY($1::uuid[])`,
    page.items.map((i) => i.orderId).filter(isUuid),
  );
  const known = new Set(rows.map((r) => r.id));
  const orphans = page.items.filter((i) => !known.has(i.orderId));
  for (const item of orphans) {
    deps.onOrphan(source);
    deps.log.error({ orderId: item.orderId, source }, "reconcile.orphaned_effect");
    await db.orphanedEffect.upsert({
      where: { orderId: item.orderId },
      create: { orderId: item.orderId, customerId: item.customerId, sources: [source] },
      update: { sources: { push: source }, ...(item.customerId ? { customerId: item.customerId } : {}) },
    });
  }
  const last = page.items.at(-1);
  if (last) {
    const at = { afterAt: new Date(last.createdAt), afterId: last.orderId };
    await db.reconcileCursor.upsert({ where: { name: source }, create: { name: source, ...at }, update: at });
  }
  return { orphans: orphans.map((o) => ({ orderId: o.orderId, source })), more: page.next !== null };
}

/** Publishes the order.cancelled that makes both peers give back what they hold for this order id. */
async function reverse(deps: OrphanDeps, orderId: string, customerId: string | null, wasConfirmed: boolean) {
  await deps.runtime.inTransaction(async (tx, enqueue) => {
    await tx.orphanedEffect.update({
      where: { orderId },
      data: { repairs: { increment: 1 }, lastRepairAt: new Date() },
    });
    const messageId = randomUUID();
    await enqueue({
      eventType: "order.cancelled",
      aggregateType: "order",
      aggregateId: orderId,
      messageId,
      payload: { orderId, customerId: customerId ?? "unknown", reason: ORPHAN_REASON, wasConfirmed },
      correlationId: messageId,
      causationId: messageId,
    });
  });
}

export async function reverseOrphans(
  deps: OrphanDeps,
  opts: { staleAfterMs: number; batchSize: number; maxRepairs: number },
): Promise<OrphanReport> {
  const report: OrphanReport = { found: [], reversed: [], gaveUp: [], errors: [] };
  const before = new Date(Date.now() - opts.staleAfterMs).toISOString();
  for (const source of SOURCES) {
    // Up to MAX_PAGES pages a pass, so the scan keeps up with a busy peer; a peer that cannot answer now
    // is scanned on a later pass, from the same cursor.
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const { orphans, more } = await scanSource(deps, source, before, opts.batchSize);
        report.found.push(...orphans);
        if (!more) break;
      }
    } catch (e) {
      report.errors.push(`${source}: ${(e as Error).message}`);
      deps.log.warn({ source, error: (e as Error).message }, "reconcile.orphan_scan_failed");
    }
  }
  // Open orphans whose last reversal (if any) had the staleness threshold to land.
  const open = await deps.db.orphanedEffect.findMany({
    where: {
      resolvedAt: null,
      repairs: { lte: opts.maxRepairs },
      OR: [{ lastRepairAt: null }, { lastRepairAt: { lt: new Date(Date.now() - opts.staleAfterMs) } }],
    },
    orderBy: { foundAt: "asc" },
    take: opts.batchSize,
  });
  for (const o of open) {
    try {
      await settleOrphan(deps, o, opts.maxRepairs, report);
    } catch (e) {
      report.errors.push(`${o.orderId}: ${(e as Error).message}`);
    }
  }
  if (report.reversed.length > 0) deps.runtime.relay.wake();
  return report;
}

/** One open orphan: resolved if nothing is held any more, reversed again, or given up on past the bound. */
async function settleOrphan(
  deps: OrphanDeps,
  o: { orderId: string; customerId: string | null; repairs: number },
  maxRepairs: number,
  report: OrphanReport,
): Promise<void> {
  const [r, g] = await Promise.all([deps.peers.reservation(o.orderId), deps.peers.grant(o.orderId)]);
  if (r?.status !== "RESERVED" && g?.status !== "GRANTED") {
    await deps.db.orphanedEffect.update({ where: { orderId: o.orderId }, data: { resolvedAt: new Date() } });
    return;
  }
  if (o.repairs >= maxRepairs) {
    report.gaveUp.push(o.orderId);
    deps.onGiveUp();
    deps.log.error({ orderId: o.orderId, repairs: o.repairs }, "reconcile.orphan_gave_up");
    await deps.db.orphanedEffect.update({
      where: { orderId: o.orderId },
      data: { repairs: { increment: 1 } },
    });
    return;
  }
  await reverse(deps, o.orderId, o.customerId, g?.status === "GRANTED");
  report.reversed.push(o.orderId);
}
