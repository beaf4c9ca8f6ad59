// When the invariant check counts the system as settled (reconcile/invariants.ts): the predicate for an
// order still moving, run on the real order database against one order of each state and age, inside a
// transaction that is rolled back so the running saga never sees the rows; and the scheduled check,
// which reads nothing more while an order is moving.
import { randomUUID } from "node:crypto";
import type { SqlTx } from "@orderflow/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  checkInvariants,
  checkInvariantsOnceSettled,
  type InvariantReport,
  UNSETTLED_ORDER,
} from "../src/reconcile/invariants.ts";
import type { Peers } from "../src/reconcile/peers.ts";
import { inRolledBack, openSaga, type Saga } from "./helpers.ts";

// In beforeAll, not at import: the suite setup releases the services (held by component tests) before it.
let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(() => saga?.close());

/** The stale threshold the predicate is given; "old" orders last changed twice that long ago. */
const STALE_AFTER_MS = 60_000;

const STATES: {
  name: string;
  status: string;
  points: number | null;
  acks: string[];
  old?: true;
  moving: boolean;
}[] = [
  { name: "pending", status: "PENDING", points: null, acks: [], moving: true },
  { name: "confirmed, points in flight", status: "CONFIRMED", points: null, acks: [], moving: true },
  { name: "confirmed, points recorded", status: "CONFIRMED", points: 123, acks: [], moving: false },
  {
    name: "cancelled, releases unacknowledged",
    status: "CANCELLED",
    points: null,
    acks: ["inventory"],
    moving: true,
  },
  { name: "cancelled, settled", status: "CANCELLED", points: null, acks: [], moving: false },
  // Past the threshold an unfinished order is stuck (reconciliation's), and the check judges it.
  { name: "pending past the threshold", status: "PENDING", points: null, acks: [], old: true, moving: false },
  {
    name: "confirmed without points past the threshold",
    status: "CONFIRMED",
    points: null,
    acks: [],
    old: true,
    moving: false,
  },
];

async function insertOrder(tx: SqlTx, s: (typeof STATES)[number]): Promise<string> {
  const id = randomUUID();
  await tx.$executeRawUnsafe(
    `INSERT INTO orders (id, customer_id, status, total, points_granted, cancel_acks, created_message_id,
                         correlation_id, created_at, updated_at)
     VALUES ($1::uuid, 'c-settled', $2, 12345, $3, $4::text[], $5::uuid, 'settled-test',
             now() - make_interval(secs => $6::double precision / 1000),
             now() - make_interval(secs => $6::double precision / 1000))`,
    id,
    s.status,
    s.points,
    s.acks,
    randomUUID(),
    s.old ? 2 * STALE_AFTER_MS : 0,
  );
  return id;
}

it("an order counts as still moving while pending, awaiting its points or its releases, and not after, nor once stuck past the stale threshold", async () => {
  const moving: Record<string, boolean> = {};
  await inRolledBack(saga.db.order, async (tx) => {
    for (const s of STATES) {
      const id = await insertOrder(tx, s);
      const rows = await tx.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM orders WHERE id = $2::uuid AND (${UNSETTLED_ORDER})`,
        STALE_AFTER_MS,
        id,
      );
      moving[s.name] = rows[0]?.n === 1;
    }
  });
  expect(moving).toEqual(Object.fromEntries(STATES.map((s) => [s.name, s.moving])));
});

/** Peers that answer the check's two questions with nothing and record that they were asked. */
function askedPeers(): { peers: Peers; asked: string[] } {
  const asked: string[] = [];
  const no = () => Promise.reject(new Error("reconciliation's calls are not part of the invariant check"));
  return {
    asked,
    peers: {
      heldEffects: no,
      reservation: no,
      grant: no,
      replayInventoryReply: no,
      replayPointsReply: no,
      stock: async () => {
        asked.push("stock");
        return [];
      },
      balances: async () => {
        asked.push("balances");
        return [];
      },
    },
  };
}

it("while an order is moving, the scheduled check reads no sums and asks no peer; asked for, the check still runs whole", async () => {
  const scheduled = askedPeers();
  const onDemand = askedPeers();
  let skipped: unknown = "not run";
  let report: InvariantReport | undefined;
  await inRolledBack(saga.db.order, async (tx) => {
    await insertOrder(tx, STATES[0] as (typeof STATES)[number]); // pending, changed just now
    skipped = await checkInvariantsOnceSettled(tx, scheduled.peers, STALE_AFTER_MS);
    report = await checkInvariants(tx, onDemand.peers, STALE_AFTER_MS);
  });
  expect(skipped).toBeUndefined();
  expect(scheduled.asked).toEqual([]);
  expect(report?.settled).toBe(false);
  expect(onDemand.asked.sort()).toEqual(["balances", "stock"]);
});

it("once nothing is moving, the scheduled check runs whole", async () => {
  const { peers, asked } = askedPeers();
  let report: InvariantReport | undefined;
  await inRolledBack(saga.db.order, async (tx) => {
    // A threshold of minus a minute: every unfinished order counts as stuck, even one written this
    // instant, so nothing is moving whatever else runs on the stack meanwhile.
    report = await checkInvariantsOnceSettled(tx, peers, -60_000);
  });
  expect(report?.settled).toBe(true);
  expect(asked.sort()).toEqual(["balances", "stock"]);
});
