// Start-up checks: a service that cannot reach a dependency says which one, where, and through which
// variable, instead of failing later with a driver's stack trace.
import amqp from "amqplib";
import pg from "pg";

const where = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port}${u.pathname}`;
  } catch {
    return "(unparseable URL)";
  }
};

export async function checkDatabase(url: string, variable: string): Promise<void> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
    await c.query("SELECT 1");
  } catch (e) {
    throw new Error(`cannot reach PostgreSQL at ${where(url)} (${variable}): ${(e as Error).message}`);
  } finally {
    await c.end().catch(() => {});
  }
}

export async function checkBroker(urls: string[], variable: string): Promise<void> {
  const errors: string[] = [];
  for (const url of urls) {
    try {
      const conn = await amqp.connect(url, { timeout: 5_000 });
      await conn.close();
      return;
    } catch (e) {
      errors.push(`${where(url)}: ${(e as Error).message}`);
    }
  }
  throw new Error(`cannot reach RabbitMQ on any node (${variable}): ${errors.join("; ")}`);
}
