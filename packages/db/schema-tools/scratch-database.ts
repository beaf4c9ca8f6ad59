// db:new and db:check never touch a service's own database: they replay its migrations on a scratch
// database created for the purpose and dropped afterwards, whatever happens.
import { randomBytes } from "node:crypto";
import pg from "pg";

export async function withScratchDatabase<T>(adminUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const name = `orderflow_schema_${randomBytes(5).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${name}"`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await run(url.toString());
  } finally {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  try {
    await client.connect();
  } catch (e) {
    const where = new URL(adminUrl);
    throw new Error(
      `cannot reach PostgreSQL at ${where.hostname}:${where.port} for a scratch database (${(e as Error).message}): ` +
        "start the local stack (pnpm stack up) or set ORDERFLOW_DB_ADMIN_URL",
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
