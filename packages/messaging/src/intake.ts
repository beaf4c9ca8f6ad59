// Between the broker and the transactions: deliveries wait here for one of `concurrency` transaction
// lanes. The broker hands over up to `prefetch` (100) at once, which quorum queues need for throughput;
// as many transactions at once would only queue inside the database pool, time out there and starve the
// HTTP path. A free lane takes up to `batchSize` of its waiting deliveries of one channel, so batches
// form only under load: at a trickle each message still gets a transaction of its own at once.
//
// Each delivery waits on the lane of its aggregate (the `x-aggregate-id` header the outbox sets, hashed):
// two messages about one order are never applied in two transactions at once, and the later one never
// overtakes the earlier (a cancel behind its create), whatever the concurrency. Messages without an
// aggregate take the lanes in turn. With one lane (the default) this is one queue, in delivery order.
import { HEADERS } from "@orderflow/contracts";
import type { Channel, ConsumeMessage } from "amqplib";

export interface IntakeOptions {
  batchSize: number;
  concurrency: number;
  /** Settles one delivery (never rejects). */
  deliver: (ch: Channel, msg: ConsumeMessage) => Promise<void>;
  /** Settles several deliveries of one channel (never rejects). */
  deliverBatch: (ch: Channel, msgs: ConsumeMessage[]) => Promise<void>;
}

export interface Intake {
  push(ch: Channel, msg: ConsumeMessage): void;
  /** Deliveries received and not yet settled. */
  count(): number;
  /** Resolves when none is left, or after timeoutMs. */
  drained(timeoutMs: number): Promise<void>;
}

/** FNV-1a over the key's UTF-16 units: cheap, and spreads uuids evenly over a few lanes. */
export function laneOf(key: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % lanes;
}

/** The aggregate a message is about (the outbox's `x-aggregate-id` header), when it names one. */
export function aggregateOf(headers: Record<string, unknown> | undefined): string | undefined {
  const v = headers?.[HEADERS.aggregateId];
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

interface Lane {
  waiting: { ch: Channel; msg: ConsumeMessage }[];
  busy: boolean;
}

export function createIntake(o: IntakeOptions): Intake {
  if (!(o.batchSize >= 1 && o.concurrency >= 1))
    throw new Error("batchSize and concurrency must be at least 1");
  const lanes: Lane[] = Array.from({ length: o.concurrency }, () => ({ waiting: [], busy: false }));
  let turn = 0;
  let unsettled = 0;
  const idle: (() => void)[] = [];
  const laneFor = (msg: ConsumeMessage): Lane => {
    const key = aggregateOf(msg.properties.headers);
    const n = key === undefined ? turn++ % lanes.length : laneOf(key, lanes.length);
    return lanes[n] as Lane;
  };
  const pump = (lane: Lane): void => {
    if (lane.busy || lane.waiting.length === 0) return;
    const ch = (lane.waiting[0] as { ch: Channel }).ch;
    let n = 1;
    while (n < o.batchSize && n < lane.waiting.length && lane.waiting[n]?.ch === ch) n++;
    const msgs = lane.waiting.splice(0, n).map((w) => w.msg);
    lane.busy = true;
    void (msgs.length === 1 ? o.deliver(ch, msgs[0] as ConsumeMessage) : o.deliverBatch(ch, msgs))
      .catch(() => {}) // each delivery settles itself, bugs included
      .finally(() => {
        lane.busy = false;
        // The next batch first: counting down last keeps "drained" from firing between two batches.
        pump(lane);
        unsettled -= msgs.length;
        if (unsettled === 0) for (const w of idle.splice(0)) w();
      });
  };
  return {
    push(ch, msg) {
      unsettled++;
      const lane = laneFor(msg);
      lane.waiting.push({ ch, msg });
      pump(lane);
    },
    count: () => unsettled,
    drained: (timeoutMs) =>
      unsettled === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const t = setTimeout(resolve, timeoutMs);
            idle.push(() => {
              clearTimeout(t);
              resolve();
            });
          }),
  };
}
