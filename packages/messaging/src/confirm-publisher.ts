// Publishing with publisher confirms over the failover connection. Each publish resolves only once the
// broker confirmed it (for a quorum queue: replicated to a majority); it rejects on nack, on a closed
// channel and after `confirmTimeoutMs`, because with quorum lost the broker answers nothing at all.
// At most `maxInFlight` publishes wait for confirms; more wait for a slot (same timeout).
// A channel that keeps getting nacks or timeouts is recycled: one opened during a leader election can
// stay broken until the dead node returns (shared notes).
import type { ConfirmChannel, Options } from "amqplib";
import type { BrokerConnection } from "./connection.ts";
import { MessagingError } from "./errors.ts";
import type { Logger } from "./logger.ts";

export interface ConfirmPublisherOptions {
  confirmTimeoutMs?: number;
  maxInFlight?: number;
  /**
   * Publish as mandatory and reject with UNROUTABLE what no queue took (the broker confirms those too,
   * so without this a missing binding loses the message silently). Needs a messageId. Default true.
   */
  mandatory?: boolean;
  /** Consecutive nacks/timeouts after which the channel is closed and a new one opened. Default 3. */
  recycleAfterFailures?: number;
  log?: Logger;
}

export interface ConfirmPublisher {
  publish(exchange: string, routingKey: string, content: Buffer, options?: Options.Publish): Promise<void>;
  stats(): { inFlight: number; confirmed: number; failed: number; recycled: number };
  close(): Promise<void>;
}

export function createConfirmPublisher(
  conn: BrokerConnection,
  opts: ConfirmPublisherOptions = {},
): ConfirmPublisher {
  const timeoutMs = opts.confirmTimeoutMs ?? 10_000;
  const maxInFlight = opts.maxInFlight ?? 200;
  const recycleAfter = opts.recycleAfterFailures ?? 3;
  const mandatory = opts.mandatory ?? true;
  // basic.return arrives before the confirm of the same message: count returns per messageId.
  const returned = new Map<string, number>();
  const log = opts.log ?? (() => {});
  let channel: Promise<ConfirmChannel> | undefined;
  /** The channel `channel` resolved to; recycling only ever closes this one. */
  let current: ConfirmChannel | undefined;
  let inFlight = 0;
  let failuresInARow = 0;
  let closed = false;
  const counters = { confirmed: 0, failed: 0, recycled: 0 };
  const slotWaiters: (() => void)[] = [];
  const pendingRejects = new Map<ConfirmChannel, Set<(e: Error) => void>>();

  const unsubscribe = conn.onDisconnect(() => {
    channel = undefined;
  });

  function getChannel(): Promise<ConfirmChannel> {
    if (!channel) {
      const p = conn.ready(timeoutMs).then(async () => {
        const ch = await conn.createConfirmChannel();
        current = ch;
        pendingRejects.set(ch, new Set());
        ch.on("return", (m: { properties: { messageId?: string } }) => {
          const id = m.properties.messageId;
          if (id !== undefined) returned.set(id, (returned.get(id) ?? 0) + 1);
        });
        ch.on("close", () => {
          if (channel === p) channel = undefined;
          const rejects = pendingRejects.get(ch);
          pendingRejects.delete(ch);
          for (const r of rejects ?? [])
            r(new MessagingError("CHANNEL_CLOSED", "channel closed before confirm"));
        });
        return ch;
      });
      p.catch(() => {
        if (channel === p) channel = undefined;
      });
      channel = p;
    }
    return channel;
  }

  async function recycle(ch: ConfirmChannel): Promise<void> {
    // Several publishes failing together would otherwise recycle a fresh channel too.
    if (ch !== current) return;
    current = undefined;
    counters.recycled += 1;
    failuresInARow = 0;
    log("warn", "recycling a confirm channel after repeated nacks/timeouts");
    channel = undefined;
    await ch.close().catch(() => {});
  }

  function takeReturned(id: string): boolean {
    const n = returned.get(id) ?? 0;
    if (n === 0) return false;
    if (n === 1) returned.delete(id);
    else returned.set(id, n - 1);
    return true;
  }

  async function acquireSlot(deadline: number): Promise<void> {
    while (inFlight >= maxInFlight) {
      const left = deadline - Date.now();
      if (left <= 0) throw new MessagingError("IN_FLIGHT_FULL", `${inFlight} publishes await confirms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        slotWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    inFlight += 1;
  }

  function releaseSlot(): void {
    inFlight -= 1;
    slotWaiters.shift()?.();
  }

  return {
    async publish(exchange, routingKey, content, options = {}) {
      if (closed) throw new MessagingError("CLOSED", "publisher closed");
      const deadline = Date.now() + timeoutMs;
      await acquireSlot(deadline);
      try {
        const ch = await getChannel();
        await new Promise<void>((resolve, reject) => {
          const rejects = pendingRejects.get(ch);
          let settled = false;
          const settle = (err?: Error) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            rejects?.delete(onClosed);
            if (err) reject(err);
            else resolve();
          };
          const onClosed = (e: Error) => settle(e);
          rejects?.add(onClosed);
          const timer = setTimeout(
            () => settle(new MessagingError("CONFIRM_TIMEOUT", `no confirm within ${timeoutMs} ms`)),
            Math.max(deadline - Date.now(), 1),
          );
          try {
            const id = options.messageId;
            const useMandatory = mandatory && id !== undefined;
            const props = { persistent: true, ...options, mandatory: useMandatory };
            ch.publish(exchange, routingKey, content, props, (err) => {
              const wasReturned = useMandatory && takeReturned(id);
              settle(
                err
                  ? // amqplib fails pending confirms with "channel closed" when the channel dies.
                    /closed/i.test(String((err as Error).message))
                    ? new MessagingError("CHANNEL_CLOSED", "channel closed before confirm")
                    : new MessagingError("PUBLISH_NACKED", "broker nacked the publish")
                  : wasReturned
                    ? new MessagingError("UNROUTABLE", `no queue is bound for ${exchange} / ${routingKey}`)
                    : undefined,
              );
            });
          } catch (e) {
            settle(new MessagingError("CHANNEL_CLOSED", (e as Error).message));
          }
        }).then(
          () => {
            failuresInARow = 0;
            counters.confirmed += 1;
          },
          async (e: MessagingError) => {
            counters.failed += 1;
            if (e.code === "PUBLISH_NACKED" || e.code === "CONFIRM_TIMEOUT") {
              failuresInARow += 1;
              if (failuresInARow >= recycleAfter) await recycle(ch);
            }
            throw e;
          },
        );
      } finally {
        releaseSlot();
      }
    },
    stats: () => ({ inFlight, ...counters }),
    async close() {
      closed = true;
      unsubscribe();
      const p = channel;
      channel = undefined;
      if (p) await p.then((ch) => ch.close()).catch(() => {});
    },
  };
}
