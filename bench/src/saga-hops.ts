// Where an order's latency goes, hop by hop, from the three databases' own timestamps (one clock:
// every process of the local stack runs on one host). An outbox row's created_at is its transaction's start (now());
// its sent_at is when the relay recorded the broker's confirm; the next hop's row is created when the
// consumer's transaction starts, so "delivery" spans broker routing, queueing and the consumer's pickup.
import { adminUrl, databaseName, type Stack } from "@orderflow/infra";
import pg from "pg";
import { FINAL_ORDER } from "./saga-step.ts";
import { type Latency, latency } from "./stats.ts";

export const HOPS = [
  "POST tx + order.created waiting in outbox until confirmed",
  "order.created delivered -> inventory tx starts",
  "inventory tx + inventory.reserved in outbox until confirmed",
  "inventory.reserved delivered -> points tx starts",
  "points tx + points.granted in outbox until confirmed",
  "points.granted delivered -> final (points recorded, order confirmed beside)",
] as const;

type Times = Map<string, { created: number; sent: number }>;

async function outboxTimes(
  stack: Stack,
  service: "order" | "inventory" | "points",
  eventType: string,
  ids: string[],
): Promise<Times> {
  const c = new pg.Client({ connectionString: adminUrl(stack.pg, databaseName(service)) });
  await c.connect();
  try {
    const r = await c.query<{ id: string; created: number; sent: number | null }>(
      `SELECT aggregate_id AS id, extract(epoch FROM created_at)::float8 * 1000 AS created,
              extract(epoch FROM sent_at)::float8 * 1000 AS sent
         FROM outbox WHERE event_type = $1 AND aggregate_id = ANY($2::text[])`,
      [eventType, ids],
    );
    return new Map(
      r.rows
        .filter((x) => x.sent !== null)
        .map((x) => [x.id, { created: x.created, sent: x.sent as number }]),
    );
  } finally {
    await c.end().catch(() => {});
  }
}

async function finalTimes(stack: Stack, ids: string[]): Promise<Map<string, number>> {
  const c = new pg.Client({ connectionString: adminUrl(stack.pg, databaseName("order")) });
  await c.connect();
  try {
    const r = await c.query<{ id: string; at: number }>(
      `SELECT id::text AS id, extract(epoch FROM updated_at)::float8 * 1000 AS at
         FROM orders WHERE id = ANY($1::uuid[]) AND ${FINAL_ORDER}`,
      [ids],
    );
    return new Map(r.rows.map((x) => [x.id, x.at]));
  } finally {
    await c.end().catch(() => {});
  }
}

/** Per hop, the distribution over the given orders (those that reached their final state). */
export async function hopBreakdown(stack: Stack, ids: string[]): Promise<{ hop: string; ms: Latency }[]> {
  const created = await outboxTimes(stack, "order", "order.created", ids);
  const reserved = await outboxTimes(stack, "inventory", "inventory.reserved", ids);
  const granted = await outboxTimes(stack, "points", "points.granted", ids);
  const final = await finalTimes(stack, ids);
  const hops: number[][] = HOPS.map(() => []);
  for (const id of ids) {
    const a = created.get(id);
    const b = reserved.get(id);
    const d = granted.get(id);
    const f = final.get(id);
    if (!a || !b || !d || f === undefined) continue;
    const t = [a.created, a.sent, b.created, b.sent, d.created, d.sent, f];
    for (let i = 0; i < HOPS.length; i++) hops[i]?.push((t[i + 1] as number) - (t[i] as number));
  }
  return HOPS.map((hop, i) => ({ hop, ms: latency(hops[i] ?? []) }));
}
