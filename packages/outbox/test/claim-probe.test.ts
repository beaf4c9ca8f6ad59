// The claim probe (the no-archive pitfall's measure and the bench's): it explains the sweep's own claim
// statement inside a rolled-back transaction.
import { afterAll, beforeAll, expect, it } from "vitest";
import { claimPagesProbe } from "../src/index.ts";
import { freshDatabase, type TestDb } from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db?.drop());

it("measures the sweep's own claim statement in buffer pages and claims nothing", async () => {
  await db.pool.query(
    `INSERT INTO outbox (message_id, event_type, aggregate_type, aggregate_id, payload)
     SELECT gen_random_uuid(), 'order.created', 'order', g::text, '{}'::jsonb FROM generate_series(1, 50) g`,
  );
  expect(await claimPagesProbe(db.pool)).toBeGreaterThan(0);
  // The probe rolls its claim back: every pending row is still due now.
  const due = await db.pool.query(
    "SELECT count(*)::int AS n FROM outbox WHERE status = 0 AND next_attempt_at <= now()",
  );
  expect(due.rows[0].n).toBe(50);
});
