// How many messages each parking lot holds, asked of each queue over AMQP (a passive queue.declare, which
// its leader answers). The management API's figures are statistics the queues emit every few seconds, and
// right after the whole broker restarted an idle parking lot has emitted none yet: it reads 0. Seen in
// CI: a pair's audit read 0 parked in lots holding 26, and the next scenario read 26 again (-26 parked).
import { amqpUrls, readDefinitions, type Stack } from "@orderflow/infra";
import amqp from "amqplib";

const PARKING_LOTS = readDefinitions()
  .queues.map((q) => q.name)
  .filter((n) => n.endsWith(".parking"));

/** A bound on each broker call: a queue without a leader yet would leave a passive declare waiting. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Messages in each parking lot now; tries each node in turn, throws naming the last error. */
export async function parkingCounts(s: Pick<Stack, "layout" | "secrets">): Promise<Record<string, number>> {
  let last: unknown;
  for (const url of amqpUrls(s, "admin")) {
    let conn: amqp.ChannelModel | undefined;
    try {
      conn = await within(amqp.connect(url), 5_000, "connect");
      const ch = await within(conn.createChannel(), 5_000, "channel");
      const out: Record<string, number> = {};
      for (const q of PARKING_LOTS) out[q] = (await within(ch.checkQueue(q), 10_000, q)).messageCount;
      await ch.close();
      return out;
    } catch (e) {
      last = e;
    } finally {
      await conn?.close().catch(() => {});
    }
  }
  throw new Error(`cannot count the parking lots on any node: ${(last as Error | undefined)?.message}`);
}
