// The bench refuses to run against a stack that is not up, and says which part is missing.
import { adminUrl, amqpUrls, appsStatus, type Stack } from "@orderflow/infra";
import amqp from "amqplib";
import pg from "pg";

export async function checkStack(stack: Stack, needServices: boolean): Promise<string[]> {
  const problems: string[] = [];
  const c = new pg.Client({ connectionString: adminUrl(stack.pg), connectionTimeoutMillis: 3_000 });
  try {
    await c.connect();
    await c.query("SELECT 1");
  } catch (e) {
    problems.push(`PostgreSQL on port ${stack.layout.postgres.port}: ${(e as Error).message}`);
  } finally {
    await c.end().catch(() => {});
  }
  for (const url of amqpUrls(stack, "admin")) {
    try {
      const conn = await amqp.connect(url, { timeout: 3_000 });
      await conn.close();
    } catch (e) {
      problems.push(`RabbitMQ ${new URL(url).port}: ${(e as Error).message}`);
    }
  }
  if (needServices) {
    // A held service (stopped on purpose, or by a test run that ended without releasing the apps) is not
    // restarted by the supervisor: say so and how to release it, not just that it does not answer.
    const held = new Set((await appsStatus(stack)).filter((a) => a.held).map((a) => a.name));
    for (const [name, port] of Object.entries(stack.layout.servicePorts)) {
      if (held.has(name)) {
        problems.push(
          `${name} service is held stopped: \`pnpm stack chaos start ${name}\` lets it run again`,
        );
        continue;
      }
      try {
        const r = await fetch(`http://127.0.0.1:${port}/health/ready`, {
          signal: AbortSignal.timeout(3_000),
        });
        if (!r.ok) problems.push(`${name} service on ${port}: /health/ready answered ${r.status}`);
      } catch (e) {
        problems.push(`${name} service on ${port}: ${(e as Error).message}`);
      }
    }
  }
  return problems;
}
