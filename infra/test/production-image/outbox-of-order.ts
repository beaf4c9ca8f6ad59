// Every outbox row that one order caused, in each service's database (archived rows too), read as the
// database admin: a saga is finished only when each of them is done, i.e. nothing is left to publish,
// and no reply is still awaited.
import pg from "pg";
import { adminUrl, databaseName, SERVICE_NAMES, type ServiceName, type Stack } from "../../src/index.ts";

export interface OutboxRow {
  service: ServiceName;
  eventType: string;
  /** 0 pending, 1 sent (broker confirmed), 2 done, 9 failed (packages/outbox's migration). */
  status: number;
}

export async function outboxRowsOf(stack: Stack, orderId: string): Promise<OutboxRow[]> {
  const rows = await Promise.all(
    SERVICE_NAMES.map(async (service) => {
      const c = new pg.Client({ connectionString: adminUrl(stack.pg, databaseName(service)) });
      await c.connect();
      try {
        const r = await c.query<{ event_type: string; status: number }>(
          `SELECT event_type, status FROM outbox WHERE aggregate_id = $1
           UNION ALL SELECT event_type, status FROM outbox_archive WHERE aggregate_id = $1`,
          [orderId],
        );
        return r.rows.map((row) => ({ service, eventType: row.event_type, status: row.status }));
      } finally {
        await c.end();
      }
    }),
  );
  return rows
    .flat()
    .sort((a, b) => `${a.service}/${a.eventType}`.localeCompare(`${b.service}/${b.eventType}`));
}
