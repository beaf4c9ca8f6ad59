// Duplicates on purpose: what a relay crash between publish and mark-sent, or a publisher retry after a
// lost confirm, puts on the wire. The most recent order.created messages already published go out again
// with the same message id and body, exactly as the relay built them (packages/outbox toMessage).
import { adminUrl, amqpUrls, databaseName, type Stack } from "@orderflow/infra";
import { CLAIMED_COLUMNS, type ClaimedRecord, toClaimedRow, toMessage } from "@orderflow/outbox";
import { withConfirmedPublisher } from "@orderflow/testkit/publisher.ts";
import pg from "pg";

/** Re-publishes the `count` newest order.created rows already sent; returns how many the broker confirmed. */
export async function republishSentOrders(s: Stack, count: number): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl(s.pg, databaseName("order")) });
  await client.connect();
  let rows: ClaimedRecord[];
  try {
    rows = (
      await client.query<ClaimedRecord>(
        `SELECT ${CLAIMED_COLUMNS} FROM outbox o
          WHERE o.event_type = 'order.created' AND o.status IN (1, 2)
          ORDER BY o.created_at DESC LIMIT $1`,
        [count],
      )
    ).rows;
  } finally {
    await client.end();
  }
  await withConfirmedPublisher(
    amqpUrls(s, "admin"),
    (p) => p.publishAll(rows.map((r) => toMessage(toClaimedRow(r)))),
    { name: "fault lab: duplicate-publish" },
  );
  return rows.length;
}
