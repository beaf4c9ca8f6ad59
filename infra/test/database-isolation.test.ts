import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import pg from "pg";
import { beforeAll, expect, test } from "vitest";
import { databaseName, SERVICE_NAMES, type Stack, serviceUrl } from "../src/index.ts";

let s: Stack;
beforeAll(async () => {
  s = await requireHealthyStack();
});

async function tryConnect(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
    const r = await c.query<{ db: string }>("SELECT current_database() AS db");
    return `connected to ${r.rows[0]?.db}`;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
}

test.each(SERVICE_NAMES)("the %s role reaches its own database and is refused the others", async (svc) => {
  const own = serviceUrl(s.pg, svc);
  expect(await tryConnect(own)).toBe(`connected to ${databaseName(svc)}`);
  for (const other of SERVICE_NAMES.filter((x) => x !== svc)) {
    const url = own.replace(/\/[^/]+$/, `/${databaseName(other)}`);
    expect(await tryConnect(url)).toMatch(/permission denied for database/);
  }
  expect(await tryConnect(own.replace(/\/[^/]+$/, "/postgres"))).toMatch(/permission denied for database/);
});
