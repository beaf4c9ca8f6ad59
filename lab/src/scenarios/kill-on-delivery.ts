// Starts a held consumer and SIGKILLs it the moment the broker has handed it its backlog: the queue's
// ready count, read through AMQP (queue.declare passive answers from the queue itself, not from the
// management API's 5 s statistics), falls below half of what it held before the start. A kill timed
// from the service's ready instead came up to 0.6 s late (the supervisor's and the readiness check's
// polls): enough for a batched consumer to apply the whole backlog, so the kill found nothing to lose.
import { amqpUrls, killApplication, type Stack, startApplication } from "@orderflow/infra";
import amqp from "amqplib";

const POLL_MS = 5;
/** The start (supervisor poll, process start-up, subscribe) took up to 8.7 s on a loaded 2-core host. */
const DEADLINE_MS = 60_000;

export interface KillOnDelivery {
  /** Ready messages in the queue when the consumer was released. */
  readyBefore: number;
  /** Ready messages at the poll that triggered the kill. */
  readyAtKill: number;
  /** From the release to the kill. */
  afterMs: number;
  /** The deadline passed before the broker handed anything over (nothing to hand, or no consumer). */
  timedOut: boolean;
}

export async function killOnDelivery(s: Stack, app: string, queue: string): Promise<KillOnDelivery> {
  const conn = await amqp.connect(amqpUrls(s, "admin")[0] as string);
  try {
    const ch = await conn.createChannel();
    const ready = async () => (await ch.checkQueue(queue)).messageCount;
    const readyBefore = await ready();
    const t0 = performance.now();
    // Released now; waits (below) until the supervisor's restart after the kill is ready again.
    const started = startApplication(app, s);
    started.catch(() => {}); // awaited below; a rejection before then must not go unhandled
    let readyAtKill = readyBefore;
    const deadline = Date.now() + DEADLINE_MS;
    while (Date.now() < deadline) {
      readyAtKill = await ready();
      if (readyAtKill < readyBefore / 2) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const timedOut = !(readyAtKill < readyBefore / 2);
    await killApplication(app, s);
    const afterMs = Math.round(performance.now() - t0);
    await started;
    return { readyBefore, readyAtKill, afterMs, timedOut };
  } finally {
    await conn.close().catch(() => {});
  }
}
