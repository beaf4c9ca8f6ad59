// A write and its outbox rows as one statement with no transaction around it (POST /orders' path): the
// statement is the unit of atomicity, so the business rows and the events commit together or not at all.
import { randomUUID } from "node:crypto";
import { pgAutocommit } from "@orderflow/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatedWrite, insertWithOutboxRows, outboxRow } from "../src/index.ts";
import { buildEvent, freshDatabase, type TestDb } from "./helpers.ts";

let db: TestDb;
beforeAll(async () => {
  db = await freshDatabase();
  await db.pool.query("CREATE TABLE widgets (id uuid PRIMARY KEY, name text NOT NULL)");
});
afterAll(async () => db?.drop());

/** Inserts a widget unless its id is taken; the gate is the insert's RETURNING. */
const widget = (id: string, name: string): GatedWrite => ({
  ctes: {
    strings: [
      "w AS (INSERT INTO widgets (id, name) VALUES (",
      "::uuid, ",
      ") ON CONFLICT (id) DO NOTHING RETURNING id)",
    ],
    values: [id, name],
  },
  gate: "w",
});

const widgetNames = async (id: string) =>
  (await db.pool.query<{ name: string }>("SELECT name FROM widgets WHERE id = $1", [id])).rows.map(
    (r) => r.name,
  );

const outboxOf = async (messageIds: string[]) =>
  (
    await db.pool.query<{ message_id: string; leased: boolean }>(
      "SELECT message_id::text, next_attempt_at > now() AS leased FROM outbox WHERE message_id = ANY($1::uuid[]) ORDER BY id",
      [messageIds],
    )
  ).rows;

describe("a write and its events in one statement", () => {
  it("commits the business row and every outbox row together, leased and returned as claimed rows", async () => {
    const id = randomUUID();
    const rows = [outboxRow(buildEvent()), outboxRow(buildEvent())];
    const ids = rows.map((r) => r.messageId);
    const out = await insertWithOutboxRows(pgAutocommit(db.pool), widget(id, "first"), rows, 30_000);
    expect(out.written).toBe(true);
    expect(out.claimed.map((c) => c.messageId)).toEqual(ids);
    expect(out.claimed.every((c) => c.attempts === 0 && /^\d+$/.test(c.id))).toBe(true);
    expect(await widgetNames(id)).toEqual(["first"]);
    expect(await outboxOf(ids)).toEqual(ids.map((m) => ({ message_id: m, leased: true })));
  });

  it("writes no event when the gate wrote nothing (a replayed key)", async () => {
    const id = randomUUID();
    const autocommit = pgAutocommit(db.pool);
    await insertWithOutboxRows(autocommit, widget(id, "first"), [outboxRow(buildEvent())], 30_000);
    const replay = outboxRow(buildEvent());
    const out = await insertWithOutboxRows(autocommit, widget(id, "second"), [replay], 30_000);
    expect(out).toEqual({ written: false, claimed: [] });
    expect(await widgetNames(id)).toEqual(["first"]);
    expect(await outboxOf([replay.messageId])).toEqual([]);
  });

  it("leaves no business row when an outbox row fails (its message id already written)", async () => {
    const autocommit = pgAutocommit(db.pool);
    const taken = outboxRow(buildEvent());
    await insertWithOutboxRows(autocommit, widget(randomUUID(), "first"), [taken], 30_000);
    const id = randomUUID();
    await expect(
      insertWithOutboxRows(autocommit, widget(id, "lost"), [outboxRow(buildEvent()), taken], 30_000),
    ).rejects.toThrow(/duplicate key|unique/i);
    expect(await widgetNames(id)).toEqual([]);
  });

  it("with no lease the rows are due at once, for a claim that takes them by id", async () => {
    const row = outboxRow(buildEvent());
    const out = await insertWithOutboxRows(pgAutocommit(db.pool), widget(randomUUID(), "due"), [row], 0);
    expect(out.written).toBe(true);
    expect(await outboxOf([row.messageId])).toEqual([{ message_id: row.messageId, leased: false }]);
  });
});
