// The broker probe of the partition scenarios: a client of its own, beside the services, that publishes
// numbered messages with confirms into a scratch quorum queue and drains it, failing over from node to
// node as a service's client does. What it saw (tally.ts) says whether the broker kept its promise,
// whatever the saga made of it: every confirmed message delivered.
import type { Stack } from "@orderflow/infra";
import { amqpUrls, listQueues } from "@orderflow/infra";
import amqp from "amqplib";
import { type BrokerCounts, type PublishOutcome, tallyBroker } from "./tally.ts";

export const PROBE_QUEUE_PREFIX = "lab.partition-probe.";

/** What the probe's own clients went through: the client side of a partition. */
export interface ProbeClientView {
  /** Publishes nacked or never answered. */
  publishFailures: number;
  /** The broker cancelled the probe's consumer (its queue's member went away). */
  consumerCancellations: number;
  /** Connections lost and made again on another node (publisher and consumer together). */
  failovers: number;
  /** Connection attempts refused or timed out on the way (a paused or cut-off node). */
  connectFailures: number;
  /** The longest a publish waited for its confirm (or its failure): how long a cut held publishers up. */
  longestConfirmMs: number;
}

export interface BrokerProbe {
  /** Stops publishing, waits for the last confirms, drains the queue (bounded), deletes it, counts. */
  finish(): Promise<{ counts: BrokerCounts; clients: ProbeClientView }>;
}

export interface ProbeOptions {
  /** Messages per second published (default 50). */
  rate?: number;
  /** Hard bounds: the probe stops publishing after this many messages or this long, whichever first. */
  maxMessages?: number;
  maxMs?: number;
  /** How long finish() waits for the queue to empty (default 60 s). */
  drainMs?: number;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Connects to the first node that takes the connection, starting after the last one used. */
async function connectAny(
  urls: readonly string[],
  from: number,
  view: ProbeClientView,
): Promise<{ conn: amqp.ChannelModel; index: number }> {
  for (let i = 0; i < urls.length; i++) {
    const index = (from + i) % urls.length;
    try {
      const conn = await amqp.connect(urls[index] as string, { timeout: 3_000 });
      return { conn, index };
    } catch {
      view.connectFailures++;
    }
  }
  throw new Error("no broker node takes a connection");
}

/** connectAny, tried again every 500 ms while `more()` holds; undefined once it no longer does. */
async function connectWhile(
  urls: readonly string[],
  from: number,
  view: ProbeClientView,
  more: () => boolean,
): Promise<{ conn: amqp.ChannelModel; index: number } | undefined> {
  while (more()) {
    try {
      return await connectAny(urls, from, view);
    } catch {
      await sleep(500);
    }
  }
  return undefined;
}

/** Removes probe queues a crashed run left behind. */
async function dropLeftovers(s: Stack, ch: amqp.Channel): Promise<void> {
  const left = (await listQueues(s.rabbit)).filter((q) => q.name.startsWith(PROBE_QUEUE_PREFIX));
  for (const q of left) await ch.deleteQueue(q.name);
}

export async function startBrokerProbe(s: Stack, runTag: string, o: ProbeOptions = {}): Promise<BrokerProbe> {
  const urls = amqpUrls(s, "admin");
  const queue = `${PROBE_QUEUE_PREFIX}${runTag}`;
  const rate = o.rate ?? 50;
  const maxMessages = o.maxMessages ?? 20_000;
  const deadline = Date.now() + (o.maxMs ?? 180_000);
  const log = o.log ?? (() => {});
  const view: ProbeClientView = {
    publishFailures: 0,
    consumerCancellations: 0,
    failovers: 0,
    connectFailures: 0,
    longestConfirmMs: 0,
  };
  const published = new Map<string, PublishOutcome | "pending">();
  const delivered: string[] = [];
  let lastDeliveryAt = Date.now();

  // Set up on a whole cluster: a quorum queue declared now has a member on each of the three nodes.
  const setup = await connectAny(urls, 0, view);
  const setupCh = await setup.conn.createChannel();
  await dropLeftovers(s, setupCh);
  await setupCh.assertQueue(queue, { durable: true, arguments: { "x-queue-type": "quorum" } });
  await setup.conn.close();

  let stopped = false;
  let finished = false;

  // One publisher per node, as Jepsen's clients are spread: whichever node a partition cuts off, one
  // publisher starts on it and meets the cut first-hand.
  const publishFrom = async (first: number): Promise<void> => {
    let node = first;
    let seq = 0;
    const perNode = rate / urls.length;
    const started = Date.now();
    const more = () => !stopped && published.size < maxMessages && Date.now() < deadline;
    while (more()) {
      const link = await connectWhile(urls, node, view, more);
      if (!link) break;
      const { conn } = link;
      node = link.index;
      let open = true;
      conn.on("close", () => {
        open = false;
      });
      conn.on("error", () => {});
      try {
        const ch = await conn.createConfirmChannel();
        ch.on("error", () => {});
        while (open && more()) {
          const id = `${runTag}-${first}-${++seq}`;
          published.set(id, "pending");
          const sentAt = Date.now();
          ch.publish(
            "",
            queue,
            Buffer.from(JSON.stringify({ publisher: first, seq })),
            { messageId: id, persistent: true, contentType: "application/json" },
            (err) => {
              if (published.get(id) !== "pending") return;
              view.longestConfirmMs = Math.max(view.longestConfirmMs, Date.now() - sentAt);
              published.set(id, err ? (/nack/i.test(String(err)) ? "nacked" : "unconfirmed") : "confirmed");
            },
          );
          // Paced against the start, so a pause to reconnect is not made up by a burst.
          await sleep(Math.max(0, started + (seq * 1000) / perNode - Date.now()));
        }
      } catch {
        // the channel went with its connection: counted below, then the next node
      }
      if (open) {
        await conn.close().catch(() => {});
        break;
      }
      view.failovers++;
      node++;
    }
  };
  const publisher = Promise.all(urls.map((_, i) => publishFrom(i)));

  // A consumer per node too: the queue's deliveries reach each through its own node.
  const consumeFrom = async (first: number): Promise<void> => {
    let node = first;
    while (!finished) {
      const link = await connectWhile(urls, node, view, () => !finished);
      if (!link) return;
      const { conn } = link;
      node = link.index;
      const gone = new Promise<"closed">((resolve) => {
        conn.on("close", () => resolve("closed"));
        conn.on("error", () => {});
      });
      try {
        const ch = await conn.createChannel();
        ch.on("error", () => {});
        await ch.prefetch(200);
        let cancelled!: () => void;
        const cancel = new Promise<"cancelled">((resolve) => {
          cancelled = () => resolve("cancelled");
        });
        await ch.consume(queue, (msg) => {
          if (msg === null) {
            view.consumerCancellations++;
            cancelled();
            return;
          }
          delivered.push(String(msg.properties.messageId));
          lastDeliveryAt = Date.now();
          ch.ack(msg);
        });
        const done = new Promise<"finished">((resolve) => {
          const t = setInterval(() => {
            if (finished) {
              clearInterval(t);
              resolve("finished");
            }
          }, 200);
        });
        const why = await Promise.race([gone, cancel, done]);
        if (why === "finished") {
          await conn.close().catch(() => {});
          return;
        }
        if (why === "cancelled") await conn.close().catch(() => {});
      } catch {
        // the queue's member on this node is not there yet: another node
      }
      view.failovers++;
      node++;
      await sleep(200);
    }
  };
  const consumers = Promise.all(urls.map((_, i) => consumeFrom(i)));

  return {
    async finish() {
      stopped = true;
      await publisher;
      // The last confirms, then the queue until it is empty and quiet (bounded).
      const settleUntil = Date.now() + 15_000;
      while ([...published.values()].includes("pending") && Date.now() < settleUntil) await sleep(200);
      const drainUntil = Date.now() + (o.drainMs ?? 60_000);
      const check = await connectAny(urls, 0, view);
      const ch = await check.conn.createChannel();
      ch.on("error", () => {});
      while (Date.now() < drainUntil) {
        const { messageCount } = await ch.checkQueue(queue);
        if (messageCount === 0 && Date.now() - lastDeliveryAt > 2_000) break;
        await sleep(500);
      }
      finished = true;
      await consumers;
      await ch.deleteQueue(queue).catch(() => {});
      await check.conn.close().catch(() => {});
      const outcomes = new Map<string, PublishOutcome>();
      for (const [id, st] of published) outcomes.set(id, st === "pending" ? "unconfirmed" : st);
      const counts = tallyBroker(outcomes, delivered);
      view.publishFailures = counts.unconfirmed;
      log(`broker probe: ${JSON.stringify(counts)}; clients ${JSON.stringify(view)}`);
      return { counts, clients: view };
    },
  };
}
