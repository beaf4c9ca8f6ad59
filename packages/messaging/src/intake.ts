// Between the broker and the transactions: deliveries wait here for one of `concurrency` transaction
// slots. The broker hands over up to `prefetch` (100) at once, which quorum queues need for throughput;
// as many transactions at once would only queue inside the database pool, time out there and starve the
// HTTP path. A freed slot takes up to `batchSize` waiting deliveries of one channel, so batches form only
// under load: at a trickle each message still gets a transaction of its own at once.
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

export function createIntake(o: IntakeOptions): Intake {
  if (!(o.batchSize >= 1 && o.concurrency >= 1))
    throw new Error("batchSize and concurrency must be at least 1");
  const waiting: { ch: Channel; msg: ConsumeMessage }[] = [];
  let active = 0;
  let unsettled = 0;
  const idle: (() => void)[] = [];
  const pump = (): void => {
    while (active < o.concurrency && waiting.length > 0) {
      const ch = (waiting[0] as { ch: Channel }).ch;
      let n = 1;
      while (n < o.batchSize && n < waiting.length && waiting[n]?.ch === ch) n++;
      const msgs = waiting.splice(0, n).map((w) => w.msg);
      active++;
      void (msgs.length === 1 ? o.deliver(ch, msgs[0] as ConsumeMessage) : o.deliverBatch(ch, msgs))
        .catch(() => {}) // each delivery settles itself, bugs included
        .finally(() => {
          active--;
          // The next batch first: counting down last keeps "drained" from firing between two batches.
          pump();
          unsettled -= msgs.length;
          if (unsettled === 0) for (const w of idle.splice(0)) w();
        });
    }
  };
  return {
    push(ch, msg) {
      unsettled++;
      waiting.push({ ch, msg });
      pump();
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
