// The half-rate run's settle step against the stack's PostgreSQL: every table of the three service
// databases has been vacuumed and analysed by it (last_vacuum and last_analyze count manual runs only).
import { openStack, SERVICE_NAMES } from "@orderflow/infra";
import { describe, expect, test } from "vitest";
import { eachDatabase, settleDatabases } from "../src/settle.ts";

const stack = openStack(undefined, false);

async function maintained(since: Date): Promise<{ table: string; vacuumed: boolean; analysed: boolean }[]> {
  const perDatabase = await eachDatabase(
    stack,
    async (c) =>
      (
        await c.query<{ t: string; v: Date | null; a: Date | null }>(
          "SELECT relname AS t, last_vacuum AS v, last_analyze AS a FROM pg_stat_user_tables",
        )
      ).rows,
  );
  return perDatabase.flatMap((rows, i) =>
    rows.map((row) => ({
      table: `${SERVICE_NAMES[i]}.${row.t}`,
      vacuumed: row.v !== null && row.v >= since,
      analysed: row.a !== null && row.a >= since,
    })),
  );
}

describe("settling the databases before the half-rate run", () => {
  test("vacuums and analyses every table of the three service databases and says how long it took", async () => {
    const since = new Date(Date.now() - 1_000); // a second of slack between this process's clock and the database's
    const seconds = await settleDatabases(stack);
    expect(seconds).toBeGreaterThan(0);
    const tables = await maintained(since);
    expect(tables.map((t) => t.table)).toEqual(
      expect.arrayContaining(["order.orders", "order.outbox", "inventory.stock", "points.accounts"]),
    );
    expect(tables.filter((t) => !t.vacuumed || !t.analysed)).toEqual([]);
  });
});
