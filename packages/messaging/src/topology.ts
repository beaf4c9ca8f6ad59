// What a consumer needs to exist on the broker, and a start-up check that it does. Service users may not
// declare anything (configure `^$`), so the check is passive: `checkQueue`/`checkExchange`. A failed passive
// check closes its channel (404), so each check gets its own throwaway channel.
import type { BrokerConnection } from "./connection-types.ts";
import { MessagingError } from "./errors.ts";

export const EXCHANGES = {
  events: "orderflow.events",
  retry: "orderflow.retry",
  parking: "orderflow.parking",
} as const;

export const RETRY_TIERS = ["1s", "5s", "30s"] as const;
export type RetryTier = (typeof RETRY_TIERS)[number];
export const TIER_MS: Record<RetryTier, number> = { "1s": 1_000, "5s": 5_000, "30s": 30_000 };

export const parkingQueue = (queue: string) => `${queue}.parking`;
export const parkingRoutingKey = (queue: string) => `${queue}.parking`;
export const retryRoutingKey = (queue: string, tier: RetryTier) => `${queue}.retry.${tier}`;

export interface Requirements {
  queues: string[];
  exchanges: string[];
}

/** The exchanges and queues a consumer of `queue` relies on: its work queue, retry tiers, parking lot. */
export function consumerRequirements(queue: string, tiers: readonly RetryTier[] = RETRY_TIERS): Requirements {
  return {
    queues: [queue, ...[...new Set(tiers)].map((t) => retryRoutingKey(queue, t)), parkingQueue(queue)],
    exchanges: [EXCHANGES.retry, EXCHANGES.parking],
  };
}

/** Throws TOPOLOGY_MISSING naming every queue and exchange that is missing (or not visible to this user). */
export async function assertTopology(conn: BrokerConnection, req: Requirements): Promise<void> {
  await conn.ready();
  const missing: string[] = [];
  const check = async (
    what: string,
    fn: (ch: Awaited<ReturnType<BrokerConnection["createChannel"]>>) => Promise<unknown>,
  ) => {
    const ch = await conn.createChannel();
    try {
      await fn(ch);
    } catch (e) {
      missing.push(`${what} (${(e as Error).message.split("\n")[0]})`);
    } finally {
      await ch.close().catch(() => {});
    }
  };
  for (const q of req.queues) await check(`queue "${q}"`, (ch) => ch.checkQueue(q));
  for (const x of req.exchanges) await check(`exchange "${x}"`, (ch) => ch.checkExchange(x));
  if (missing.length > 0) {
    throw new MessagingError(
      "TOPOLOGY_MISSING",
      `broker topology incomplete, missing: ${missing.join("; ")}. Import infra/rabbitmq/definitions.json.`,
    );
  }
}
