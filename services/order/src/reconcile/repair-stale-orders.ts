// Reconciliation (对账): orders stuck past a threshold are checked against inventory and points, and
// the missing step is repaired by re-sending the ORIGINAL event (same message id, so consumers that
// already applied it skip it) or by asking the peer to re-send its reply. Every repair is logged and counted.
// An order repaired maxRepairs times in the same status without getting anywhere is given up on: reported
// once (a log line at error level and a counter to alert on), never re-sent again, because a step that
// failed for good (its message parked as poison) would only fill the parking lot with copies.
import type { Logger } from "@orderflow/logging";
import { resendMessage } from "@orderflow/outbox";
import type { Db } from "../db.ts";
import type { Peers } from "./peers.ts";
import { UNFINISHED_ORDER } from "./unfinished.ts";

export type RepairKind =
  | "republish:order.created"
  | "republish:order.confirmed"
  | "republish:order.cancelled"
  | "replay:inventory-reply"
  | "replay:points-reply";

export interface RepairDeps {
  db: Db;
  peers: Peers;
  log: Logger;
  /** Wakes the relay after rows were put back to pending. */
  wake: () => void;
  onRepair: (kind: RepairKind) => void;
  onGiveUp: (orderId: string) => void;
}

const republish = (db: Db, messageId: string | null) =>
  messageId ? resendMessage(db, messageId) : Promise.resolve(false);

interface StaleOrder {
  id: string;
  status: "PENDING" | "CONFIRMED" | "CANCELLED";
  createdMessageId: string;
  confirmedMessageId: string | null;
  cancelledMessageId: string | null;
  cancelAcks: string[];
  reconcileRepairs: number;
}

export async function repairStaleOrders(
  deps: RepairDeps,
  opts: { staleAfterMs: number; batchSize: number; maxRepairs: number; orderId?: string | undefined },
) {
  const { db, peers, log } = deps;
  const before = new Date(Date.now() - opts.staleAfterMs);
  const stale = await db.$queryRawUnsafe<StaleOrder[]>(
    `SELECT id, status, created_message_id AS "createdMessageId", confirmed_message_id AS "confirmedMessageId",
            cancelled_message_id AS "cancelledMessageId", cancel_acks AS "cancelAcks",
            CASE WHEN reconcile_repairs_status = status THEN reconcile_repairs ELSE 0 END AS "reconcileRepairs"
       FROM orders
      WHERE updated_at < $1
        AND ($3::uuid IS NULL OR id = $3::uuid)
        AND (reconcile_repairs_status IS DISTINCT FROM status OR reconcile_repairs <= $4)
        AND ${UNFINISHED_ORDER}
      ORDER BY updated_at
      LIMIT $2`,
    before,
    opts.batchSize,
    opts.orderId ?? null,
    opts.maxRepairs,
  );
  const gaveUp: string[] = [];
  const repairs: { orderId: string; kind: RepairKind }[] = [];
  const repaired = (orderId: string, kind: RepairKind, fields: Record<string, unknown> = {}) => {
    repairs.push({ orderId, kind });
    deps.onRepair(kind);
    log.warn({ orderId, kind, ...fields }, "reconcile.repair");
  };
  for (const o of stale) {
    if (o.reconcileRepairs >= opts.maxRepairs) {
      gaveUp.push(o.id);
      deps.onGiveUp(o.id);
      log.error({ orderId: o.id, status: o.status, repairs: o.reconcileRepairs }, "reconcile.gave_up");
      await db.order.update({
        where: { id: o.id },
        data: { reconcileRepairs: o.reconcileRepairs + 1, reconcileRepairsStatus: o.status },
      });
      continue;
    }
    const before = repairs.length;
    try {
      if (o.status === "PENDING") {
        const r = await peers.reservation(o.id);
        if (!r && (await republish(db, o.createdMessageId))) repaired(o.id, "republish:order.created");
        else if (r) {
          await peers.replayInventoryReply(o.id);
          repaired(o.id, "replay:inventory-reply", { reservation: r.status });
        }
      } else if (o.status === "CONFIRMED") {
        // Points grants on inventory.reserved: without a grant, inventory re-sends that reply (to points,
        // and to this service, whose inbox skips it). An order confirmed on a v1 reservation, which points
        // cannot grant on, was asked for with its own order.confirmed: that is re-sent instead.
        // Which one is decided by the order.confirmed's existence, not by whether it could be re-sent now:
        // one still waiting for its relay must not turn into a replay that points ignores.
        const g = await peers.grant(o.id);
        if (g) {
          await peers.replayPointsReply(o.id);
          repaired(o.id, "replay:points-reply", { grant: g.status });
        } else if (o.confirmedMessageId) {
          if (await republish(db, o.confirmedMessageId)) repaired(o.id, "republish:order.confirmed");
        } else {
          await peers.replayInventoryReply(o.id);
          repaired(o.id, "replay:inventory-reply", { grant: null });
        }
      } else {
        // CANCELLED with acknowledgements missing: re-send order.cancelled to whoever has not applied it,
        // and ask whoever has to re-send its acknowledgement.
        const [r, g] = await Promise.all([peers.reservation(o.id), peers.grant(o.id)]);
        const inventoryApplied = r?.status !== "RESERVED";
        const pointsApplied = !!g && g.status !== "GRANTED";
        if (!(inventoryApplied && pointsApplied)) {
          if (await republish(db, o.cancelledMessageId)) repaired(o.id, "republish:order.cancelled");
        }
        if (inventoryApplied && o.cancelAcks.includes("inventory.released")) {
          await peers.replayInventoryReply(o.id);
          repaired(o.id, "replay:inventory-reply");
        }
        if (pointsApplied && o.cancelAcks.includes("points.reversed")) {
          await peers.replayPointsReply(o.id);
          repaired(o.id, "replay:points-reply");
        }
      }
      // Touch the order so the next run waits a full threshold before looking at it again.
      const repairedNow = repairs.length > before ? 1 : 0;
      await db.order.update({
        where: { id: o.id },
        data: {
          updatedAt: new Date(),
          reconcileRepairs: o.reconcileRepairs + repairedNow,
          reconcileRepairsStatus: o.status,
        },
      });
    } catch (e) {
      log.error({ orderId: o.id, error: (e as Error).message }, "reconcile.failed");
    }
  }
  if (repairs.length > 0) deps.wake();
  return { checked: stale.length, repairs, gaveUp };
}
