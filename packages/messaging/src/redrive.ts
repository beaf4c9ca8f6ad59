// Operator action (admin user): move parked messages back to their work queue, all or by message id.
// Each one is republished with a confirm, then acked in the parking lot; messages not selected stay
// unacked until the end, then return to the parking lot in their order (channel close requeues them).

import { createConfirmPublisher } from "./confirm-publisher.ts";
import type { BrokerConnection } from "./connection-types.ts";
import { ATTEMPT_HEADER } from "./inbound.ts";
import { carriedProperties, PARK_HEADERS } from "./republish.ts";
import { parkingQueue } from "./topology.ts";

export interface RedriveResult {
  moved: string[];
  kept: number;
}

export async function redrive(
  conn: BrokerConnection,
  queue: string,
  opts: { messageIds?: string[]; limit?: number } = {},
): Promise<RedriveResult> {
  await conn.ready();
  const wanted = opts.messageIds ? new Set(opts.messageIds) : undefined;
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  const ch = await conn.createChannel();
  const publisher = createConfirmPublisher(conn, { maxInFlight: 1 });
  const moved: string[] = [];
  let kept = 0;
  try {
    while (moved.length < limit) {
      const msg = await ch.get(parkingQueue(queue));
      if (!msg) break;
      const id = msg.properties.messageId as string | undefined;
      if (wanted && (!id || !wanted.has(id))) {
        kept += 1;
        continue;
      }
      const headers = { ...((msg.properties.headers ?? {}) as Record<string, unknown>) };
      for (const h of Object.values(PARK_HEADERS)) delete headers[h];
      delete headers[ATTEMPT_HEADER];
      delete headers["x-delivery-count"];
      headers["x-redriven-at"] = new Date().toISOString();
      // Straight to the work queue (default exchange), not through orderflow.events: other subscribers of
      // the event already have their copy.
      await publisher.publish({
        exchange: "",
        routingKey: queue,
        body: msg.content,
        properties: carriedProperties(msg, headers),
      });
      ch.ack(msg);
      moved.push(id ?? "(no id)");
    }
  } finally {
    await publisher.close();
    await ch.close().catch(() => {});
  }
  return { moved, kept };
}
