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
});
