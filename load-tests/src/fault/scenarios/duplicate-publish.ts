// Duplicates on purpose: what a relay crash between publish and mark-sent, or a publisher retry after a
// lost confirm, puts on the wire. The most recent order.created messages already published go out again
// with the same message id and body, exactly as the relay built them (packages/outbox toMessage).
import { adminUrl, amqpUrls, databaseName, type Stack } from "@orderflow/infra";
import { type ClaimedRow, toMessage } from "@orderflow/outbox";
import amqp from "amqplib";
import pg from "pg";

interface SentRow {
  id: string;
  message_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: string;
  schema_version: number;
  headers: Record<string, string>;
  created_at: Date;
}

/** Re-publishes the `count` newest order.created rows already sent; returns how many the broker confirmed. */
export async function republishSentOrders(s: Stack, count: number): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl(s.pg, databaseName("order")) });
  await client.connect();
  let rows: SentRow[];
  try {
    rows = (
      await client.query<SentRow>(
        `SELECT id::text, message_id::text, event_type, aggregate_type, aggregate_id, payload::text AS payload,
                schema_version, headers, created_at
           FROM outbox WHERE event_type = 'order.created' AND status IN (1, 2)
          ORDER BY created_at DESC LIMIT $1`,
        [count],
      )
    ).rows;
  } finally {
    await client.end();
  }
  const conn = await amqp.connect(amqpUrls(s, "admin")[0] as string);
  try {
    const ch = await conn.createConfirmChannel();
    for (const r of rows) {
      const row: ClaimedRow = {
        id: r.id,
        messageId: r.message_id,
        eventType: r.event_type,
        aggregateType: r.aggregate_type,
        aggregateId: r.aggregate_id,
        payload: r.payload,
        schemaVersion: r.schema_version,
        headers: r.headers ?? {},
        attempts: 0,
        createdAt: r.created_at,
      };
      const m = toMessage(row);
      const { body, routingKey, messageId, ...props } = m;
      ch.publish("orderflow.events", routingKey, body, { persistent: true, messageId, ...props });
    }
    await ch.waitForConfirms();
    return rows.length;
  } finally {
    await conn.close();
  }
}
