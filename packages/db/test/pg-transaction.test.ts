import { adminUrl, openStack } from "@orderflow/infra";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgTransaction } from "../src/index.ts";

const stack = openStack();
const table = `pg_tx_test_${process.pid}`;
const pool = new pg.Pool({ connectionString: adminUrl(stack.pg), max: 2 });

beforeAll(async () => {
  await pool.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
});
afterAll(async () => {
  await pool.query(`DROP TABLE IF EXISTS ${table}`);
  await pool.end();
});

const count = async () => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

describe("pgTransaction", () => {
  it("commits what fn wrote and returns its result", async () => {
    const r = await pgTransaction(pool, async (tx) => {
      await tx.$executeRawUnsafe(`INSERT INTO ${table} (id) VALUES (1)`);
      return "ok";
    });
    expect(r).toBe("ok");
    expect(await count()).toBe(1);
  });

  it("rejects when a statement failed inside fn even though fn caught the error (PostgreSQL turned the COMMIT into a ROLLBACK)", async () => {
    const before = await count();
    const attempt = pgTransaction(pool, async (tx) => {
      await tx.$executeRawUnsafe(`INSERT INTO ${table} (id) VALUES (2)`);
      // A duplicate key: the transaction is now aborted, whatever fn does with the error.
      await Promise.resolve(tx.$executeRawUnsafe(`INSERT INTO ${table} (id) VALUES (1)`)).catch(() => {});
      return "swallowed";
    });
    await expect(attempt).rejects.toThrow(/COMMIT rolled back/);
    expect(await count()).toBe(before);
  });

  it("prepares each statement text once per connection: later runs reuse it, with new values", async () => {
    const one = new pg.Pool({ connectionString: adminUrl(stack.pg), max: 1 });
    try {
      const insert = `INSERT INTO ${table} (id) VALUES ($1)`;
      for (const id of [10, 11, 12])
        await pgTransaction(one, async (tx) => await tx.$executeRawUnsafe(insert, id));
      const prepared = await pgTransaction(
        one,
        async (tx) =>
          await tx.$queryRawUnsafe<{ statement: string }[]>(
            "SELECT statement FROM pg_prepared_statements WHERE statement = $1",
            insert,
          ),
      );
      expect(prepared).toHaveLength(1);
      const ids = await pool.query(`SELECT id FROM ${table} WHERE id >= 10 ORDER BY id`);
      expect(ids.rows.map((r) => r.id)).toEqual([10, 11, 12]);
    } finally {
      await one.end();
    }
  });
});
