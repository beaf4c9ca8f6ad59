// The silent-channel watchdog's rule, on stand-in channels: a channel idle while messages wait is
// recycled, except a standby of a single-active-consumer queue, which idles by design until the broker
// makes it the active one.
import { waitFor } from "@orderflow/infra";
import { silentLogger } from "@orderflow/logging";
import type { Channel } from "amqplib";
import { describe, expect, it } from "vitest";
import { startWatchdog, type WatchdogOptions } from "../src/watchdog.ts";

/** A channel whose queue always has messages ready; counts how often it was closed. */
function busyQueueChannel() {
  let closed = 0;
  const ch = {
    checkQueue: async () => ({ messageCount: 7 }),
    close: async () => {
      closed += 1;
    },
  } as unknown as Channel;
  return { ch, closed: () => closed };
}

function watch(ch: Channel, extra: Partial<WatchdogOptions> = {}) {
  let recycled = 0;
  const stop = startWatchdog({
    intervalMs: 50,
    queue: "q",
    log: silentLogger,
    channel: () => ch,
    busy: () => false,
    lastDeliveryAt: () => undefined,
    onRecycle: () => {
      recycled += 1;
    },
    ...extra,
  });
  return { stop, recycled: () => recycled };
}

describe("the silent-channel watchdog", () => {
  it("recycles a silent channel while messages wait, but not a single-active-consumer standby", async () => {
    const plain = busyQueueChannel();
    const standby = busyQueueChannel();
    const active = busyQueueChannel();
    const watchers = [
      watch(plain.ch),
      watch(standby.ch, { hasDelivered: () => false }),
      // Active once, then silent: the broken channel the watchdog is for, on a single-active queue too.
      watch(active.ch, { hasDelivered: () => true }),
    ];
    try {
      await waitFor(
        "the plain and the once-active channels recycled",
        () => plain.closed() >= 2 && active.closed() >= 2,
        {
          timeoutMs: 10_000,
        },
      );
      expect(standby.closed()).toBe(0);
      expect(watchers[1]?.recycled()).toBe(0);
    } finally {
      for (const w of watchers) w.stop();
    }
  });
});
