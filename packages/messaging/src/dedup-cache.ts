// Redis as an early skip for messages already applied. A key is written only AFTER the inbox row
// committed, so "known" always means "applied"; "unknown" (or Redis down, slow, restarting) means
// "ask the database", which decides. Every call is bounded and never queued while Redis is offline.
import { type Logger, silentLogger } from "@orderflow/logging";
import { Redis } from "ioredis";

export interface DedupCache {
  /** True only when the message was certainly applied; false when unknown or Redis is unavailable. */
  isKnown(consumer: string, messageId: string): Promise<boolean>;
  /** Call after the inbox row committed. Failures are ignored. */
  remember(consumer: string, messageId: string): Promise<void>;
  stats(): { hits: number; misses: number; errors: number };
  /** Whether Redis is connected now (health reporting). */
  available(): boolean;
  close(): Promise<void>;
}

export interface RedisDedupOptions {
  url: string;
  ttlMs: number;
  /** Upper bound of one Redis call; past it the database decides. Default 150 ms. */
  timeoutMs?: number;
  keyPrefix?: string;
  log?: Logger;
}

export function createRedisDedupCache(opts: RedisDedupOptions): DedupCache {
  const timeoutMs = opts.timeoutMs ?? 150;
  const log = opts.log ?? silentLogger;
  const redis = new Redis(opts.url, {
    // No offline queue: while Redis is down, commands fail at once instead of stalling the consumer.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: 1_000,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(200 * times, 2_000),
    // A batch's checks (and its remembers) are issued in one tick: sent as one write, answered as one
    // read, instead of one system call and wake-up each (round trips are the saga's cost).
    enableAutoPipelining: true,
  });
  let lastErrorLogged = 0;
  redis.on("error", (e: Error) => {
    // Reconnection is ioredis' job; log at most every 10 s.
    if (Date.now() - lastErrorLogged > 10_000) {
      lastErrorLogged = Date.now();
      log.warn({ error: e.message }, "dedup_cache.redis_unavailable_fallback_to_database");
    }
  });
  const key = (c: string, id: string) => `${opts.keyPrefix ?? "inbox"}:${c}:${id}`;
  const counters = { hits: 0, misses: 0, errors: 0 };

  return {
    async isKnown(consumer, messageId) {
      try {
        const n = await redis.exists(key(consumer, messageId));
        if (n === 1) counters.hits += 1;
        else counters.misses += 1;
        return n === 1;
      } catch {
        counters.errors += 1;
        return false;
      }
    },
    async remember(consumer, messageId) {
      try {
        await redis.set(key(consumer, messageId), "1", "PX", opts.ttlMs, "NX");
      } catch {
        counters.errors += 1;
      }
    },
    stats: () => ({ ...counters }),
    available: () => redis.status === "ready",
    async close() {
      redis.disconnect();
    },
  };
}
