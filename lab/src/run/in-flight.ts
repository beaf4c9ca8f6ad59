// What was in flight when a fault hit, measured right before each fault action (not at the sampler's
// next 1 s tick). "In flight" here is:
// - messages: every event between its producer's commit and its consumer's ack, i.e. outbox rows not yet
//   published (status 0) in the three databases plus the three work queues' messages, ready and unacked
//   (the broker's `messages` figure). Rows published and awaiting their reply (status 1) are not counted:
//   their message is already in a queue, or consumed.
// - orders: this run's orders accepted by the API and not yet final (PENDING: neither CONFIRMED nor
//   CANCELLED), whose saga the fault can interrupt.
// The queue figures come from the management API, which shows what each queue last reported (the
// broker's statistics interval, 5 s by default): the database figures are exact, the queues' may lag.
import { adminUrl, databaseName, listQueues, SERVICE_NAMES, type Stack } from "@orderflow/infra";
import type { InFlightSample } from "@orderflow/load/report/in-flight.ts";
import pg from "pg";
import { WORK_QUEUES } from "./sampler.ts";

export type { InFlightSample };

export interface InFlightProbe {
  measure(action: string): Promise<InFlightSample>;
  close(): Promise<void>;
}

/** A measurement never holds a fault back longer than this: a part slower than that counts as missing. */
const MEASURE_TIMEOUT_MS = 2_000;

const within = <T>(p: Promise<T>, ms: number): Promise<T | null> =>
  new Promise((resolve) => {
    const t = setTimeout(() => resolve(null), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      () => {
        clearTimeout(t);
        resolve(null);
      },
    );
  });

/** The sum of what the parts that answered say. */
export function messagesOf(s: Pick<InFlightSample, "queues" | "outboxPending">): number {
  const q = Object.values(s.queues ?? {}).reduce((a, b) => a + b, 0);
  const o = Object.values(s.outboxPending).reduce<number>((a, b) => a + (b ?? 0), 0);
  return q + o;
}

/**
 * One connection per database, opened now and kept for the run, so a measurement at a fault's start
 * pays no connect and does not wait behind the sampler's queries. `orderPrefix`: this run's customers.
 */
export function startInFlightProbe(s: Stack, orderPrefix: string, sinceMs: () => number): InFlightProbe {
  const pools = Object.fromEntries(
    SERVICE_NAMES.map((svc) => {
      const pool = new pg.Pool({ connectionString: adminUrl(s.pg, databaseName(svc)), max: 1 });
      pool.on("error", () => {}); // a restart of PostgreSQL ends idle connections; the next query reconnects
      return [svc, pool];
    }),
  );
  const count = async (svc: string, sql: string, params: unknown[] = []) => {
    const r = await pools[svc]?.query<{ n: string }>(sql, params);
    return Number(r?.rows[0]?.n ?? 0);
  };

  return {
    async measure(action) {
      const atMs = Math.round(sinceMs());
      const t0 = performance.now();
      const [queues, outbox, ordersPending] = await Promise.all([
        within(
          listQueues(s.rabbit).then((qs) =>
            Object.fromEntries(
              qs.filter((q) => WORK_QUEUES.includes(q.name)).map((q) => [q.name, q.messages]),
            ),
          ),
          MEASURE_TIMEOUT_MS,
        ),
        Promise.all(
          SERVICE_NAMES.map(
            async (svc) =>
              [
                svc,
                await within(
                  count(svc, "SELECT count(*) AS n FROM outbox WHERE status = 0"),
                  MEASURE_TIMEOUT_MS,
                ),
              ] as const,
          ),
        ),
        within(
          count(
            "order",
            "SELECT count(*) AS n FROM orders WHERE status = 'PENDING' AND customer_id LIKE $1",
            [`${orderPrefix}%`],
          ),
          MEASURE_TIMEOUT_MS,
        ),
      ]);
      const outboxPending = Object.fromEntries(outbox);
      const sample = { queues, outboxPending, ordersPending };
      return {
        atMs,
        action,
        ...sample,
        messages: messagesOf(sample),
        complete: queues !== null && ordersPending !== null && outbox.every(([, n]) => n !== null),
        tookMs: Math.round(performance.now() - t0),
      };
    },
    async close() {
      await Promise.all(Object.values(pools).map((p) => p.end().catch(() => {})));
    },
  };
}
