// A channel opened during a leader election can stay silent: consuming, yet never delivering while the
// queue holds ready messages (shared notes). Idle with ready messages for a whole interval means that
// channel is broken: close it (the subscription opens another). On a single-active-consumer queue only
// one consumer gets deliveries and the others wait idle by design, so there a channel counts as silent
// only once it has delivered: a standby has not, a consumer that was active and went quiet has.
import type { Logger } from "@orderflow/logging";
import type { Channel } from "amqplib";

export interface WatchdogOptions {
  intervalMs: number;
  queue: string;
  log: Logger;
  channel(): Channel | undefined;
  /** Stopping, or handlers in flight: a busy channel is not silent. */
  busy(): boolean;
  lastDeliveryAt(): number | undefined;
  onRecycle(): void;
  /** Set for a single-active-consumer queue: whether `ch` has delivered anything. */
  hasDelivered?: (ch: Channel) => boolean;
}

async function check(w: WatchdogOptions): Promise<void> {
  const ch = w.channel();
  if (!ch || w.busy() || (w.hasDelivered && !w.hasDelivered(ch))) return;
  const idleLongEnough = () => {
    const last = w.lastDeliveryAt();
    return last === undefined || Date.now() - last >= w.intervalMs;
  };
  if (!idleLongEnough()) return;
  const ready = await Promise.race([
    ch.checkQueue(w.queue).then((q) => q.messageCount),
    new Promise<number>((r) => setTimeout(() => r(-1), 5_000).unref()),
  ]).catch(() => 0);
  if (w.channel() !== ch || w.busy()) return;
  if (ready !== 0 && idleLongEnough()) {
    w.log.warn({ ready }, "consumer.silent_channel_recycled");
    w.onRecycle();
    await ch.close().catch(() => {});
  }
}

/** Starts the watchdog (unless intervalMs is 0); returns its stop function. */
export function startWatchdog(w: WatchdogOptions): () => void {
  if (w.intervalMs <= 0) return () => {};
  const timer = setInterval(() => void check(w), w.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
