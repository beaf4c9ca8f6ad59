// What every contender of the peers section does, and the job they share: an order row and its
// order.created event (about 300 B of JSON) committed in one business transaction, the event then
// published persistent with confirms to orderflow.events under the bench's routing key.
import type pg from "pg";

export interface Contender {
  name: string;
  version: string;
  /** How it was set up, for bench.json and the README. */
  settings: Record<string, unknown>;
  /** Roots of the PostgreSQL processes it works against, for the CPU figures. */
  postgresRoots(): number[];
  /** Commits `n` pending events at once, the backlog of a burn-down (not timed). */
  seedBacklog(n: number): Promise<void>;
  /** One business transaction, an order and its event; resolves after COMMIT with the event's message id. */
  writeOne(): Promise<string>;
  /** Starts publishing (its relay, worker or listener). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Events still in its store, not yet published and confirmed. */
  pending(): Promise<number>;
  /** Empties its store between runs. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** The business table every contender writes its order into, in the same transaction as the event. */
export const PEER_ORDERS_DDL = `CREATE TABLE IF NOT EXISTS peer_orders (
  id uuid PRIMARY KEY, customer_id text NOT NULL, total integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`;

export const INSERT_PEER_ORDER = "INSERT INTO peer_orders (id, customer_id, total) VALUES ($1, $2, $3)";

export type OrderCreated = ReturnType<typeof orderCreated>;

/**
 * One business transaction of the job: a new order's row and, through `writeEvent` on the same client
 * (a peer writes its event its own way), the event; committed together, or rolled back on a throw.
 */
export async function writeOrderWithEvent<T>(
  pool: pg.Pool,
  writeEvent: (client: pg.PoolClient, orderId: string, payload: OrderCreated) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const orderId = crypto.randomUUID();
    const payload = orderCreated(orderId);
    await client.query(INSERT_PEER_ORDER, [orderId, payload.customerId, payload.total]);
    const result = await writeEvent(client, orderId, payload);
    await client.query("COMMIT");
    return result;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** An order.created snapshot (orderCreatedV1): three lines, about 300 bytes as JSON. */
export function orderCreated(orderId: string) {
  return {
    orderId,
    customerId: `bench-customer-${orderId.slice(0, 8)}`,
    lines: [
      { sku: "BENCH-07", quantity: 2, unitPrice: 1299 },
      { sku: "BENCH-23", quantity: 1, unitPrice: 4550 },
      { sku: "BENCH-41", quantity: 3, unitPrice: 899 },
    ],
    total: 9845,
    createdAt: new Date().toISOString(),
  };
}

/** The same snapshot as a jsonb expression over `g` (a generate_series row), for backlogs in one statement. */
export const ORDER_CREATED_SQL = `jsonb_build_object('orderId', gen_random_uuid()::text,
  'customerId', 'bench-customer-' || lpad(g::text, 8, '0'),
  'lines', jsonb_build_array(
    jsonb_build_object('sku', 'BENCH-07', 'quantity', 2, 'unitPrice', 1299),
    jsonb_build_object('sku', 'BENCH-23', 'quantity', 1, 'unitPrice', 4550),
    jsonb_build_object('sku', 'BENCH-41', 'quantity', 3, 'unitPrice', 899)),
  'total', 9845, 'createdAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
