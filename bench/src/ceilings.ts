// The machine's own ceilings, measured in the same run.
//  - broker alone: persistent ~200 B messages with publisher confirms through a quorum queue (3
//    members), a window of 500 unconfirmed publishes, as the order service's user via orderflow.events;
//  - PostgreSQL alone: the order service's transaction (order + lines + history + key + outbox row) as
//    raw SQL over 16 connections.
import { amqpUrls } from "@orderflow/infra";
import amqp, { type ConfirmChannel, type Options } from "amqplib";
import { closedLoop } from "./closed-loop.ts";
import { createScratchDb } from "./scratch-db.ts";
import { createScratchQueue, EXCHANGE } from "./scratch-queue.ts";
import { fmt, fmtSpread, type Section, type SectionResult } from "./section.ts";
import { spread } from "./stats.ts";
import { orderShape, serviceMigrations } from "./tx-shapes.ts";

const WINDOW = 500;
const PG_CONNECTIONS = 16;

/** One message to publish: its body and AMQP properties. */
export interface WindowedMessage {
  body: Buffer;
  options: Options.Publish;
}

/** The ceiling's own message: about 200 B of JSON, persistent, with a message id and nothing else. */
function bareMessage(): (i: number) => WindowedMessage {
  const body = Buffer.from(
    JSON.stringify({ orderId: "x".repeat(36), lines: [{ sku: "SKU-1", qty: 2 }], pad: "y".repeat(120) }),
  );
  return (i) => ({ body, options: { persistent: true, messageId: String(i) } });
}

/**
 * Publishes `n` messages over `channels` confirm channels of one connection (their shares of `n` side by
 * side), each keeping at most `window` unconfirmed; returns confirmed messages per second. `message` makes
 * the i-th message (default: the bare one above).
 */
export async function publishWindowed(
  url: string,
  routingKey: string,
  n: number,
  window: number,
  message: (i: number) => WindowedMessage = bareMessage(),
  channels = 1,
): Promise<number> {
  const conn = await amqp.connect(url);
  conn.on("error", () => {});
  try {
    const chs = await Promise.all(Array.from({ length: channels }, () => conn.createConfirmChannel()));
    const t0 = performance.now();
    const counts = await Promise.all(
      chs.map((ch, c) => publishOnChannel(ch, routingKey, c, channels, n, window, message)),
    );
    const seconds = (performance.now() - t0) / 1000;
    const failed = counts.reduce((s, x) => s + x.failed, 0);
    if (failed > 0) throw new Error(`${failed} publishes nacked`);
    await Promise.all(chs.map((ch) => ch.close()));
    return counts.reduce((s, x) => s + x.confirmed, 0) / seconds;
  } finally {
    await conn.close().catch(() => {});
  }
}

/** Channel `c` of `channels` publishes messages c, c + channels, ... of `n`. */
async function publishOnChannel(
  ch: ConfirmChannel,
  routingKey: string,
  c: number,
  channels: number,
  n: number,
  window: number,
  message: (i: number) => WindowedMessage,
) {
  let inFlight = 0;
  let confirmed = 0;
  let failed = 0;
  let wake: (() => void) | undefined;
  for (let i = c; i < n; i += channels) {
    while (inFlight >= window) await new Promise<void>((r) => (wake = r));
    inFlight++;
    const m = message(i);
    const ok = ch.publish(EXCHANGE, routingKey, m.body, m.options, (err) => {
      inFlight--;
      if (err) failed++;
      else confirmed++;
      wake?.();
    });
    if (!ok) await new Promise<void>((r) => ch.once("drain", r));
  }
  while (inFlight > 0) await new Promise<void>((r) => (wake = r));
  return { confirmed, failed };
}

export const ceilingsSection: Section = {
  name: "ceilings",
  async run(ctx): Promise<SectionResult> {
    const repeats = 3;
    const messages = ctx.quick ? 3_000 : 10_000;
    const txs = ctx.quick ? 500 : 2_000;
    const q = await createScratchQueue(ctx.stack, "ceiling");
    const broker: number[] = [];
    try {
      for (let i = 0; i < repeats; i++) {
        broker.push(
          await publishWindowed(amqpUrls(ctx.stack, "order")[0] as string, q.routingKey, messages, WINDOW),
        );
        ctx.log(`  broker #${i + 1}: ${fmt(broker[i] ?? Number.NaN)} msg/s`);
        await q.purge();
      }
    } finally {
      await q.delete();
    }
    const db = await createScratchDb(ctx.stack, "ceiling", [serviceMigrations("order")], PG_CONNECTIONS);
    const pgRates: number[] = [];
    try {
      const run = orderShape.raw(db.pool);
      await closedLoop(run, { count: 100, concurrency: PG_CONNECTIONS });
      for (let i = 0; i < repeats; i++) {
        const r = await closedLoop(run, { count: txs, concurrency: PG_CONNECTIONS, maxMs: 5_000 });
        if (r.errors > 0) throw new Error(`${r.errors} transactions failed: ${r.firstError}`);
        pgRates.push(r.opsPerSec);
        ctx.log(`  postgres #${i + 1}: ${fmt(r.opsPerSec)} tx/s (p50 ${fmt(r.latencyMs.p50, 1)} ms)`);
      }
    } finally {
      await db.drop();
    }
    const b = spread(broker);
    const p = spread(pgRates);
    return {
      title: "The machine's ceilings (each alone)",
      rows: [
        {
          measure: `broker alone: persistent messages, confirms, quorum queue, window ${WINDOW} (${fmt(messages)} msgs)`,
          result: `${fmt(b.median)} msg/s`,
          spread: fmtSpread(b),
          kind: "measured",
        },
        {
          measure: `PostgreSQL alone: order transaction as raw SQL, ${PG_CONNECTIONS} connections (${fmt(txs)} tx)`,
          result: `${fmt(p.median)} tx/s`,
          spread: fmtSpread(p),
          kind: "measured",
        },
      ],
      data: {
        brokerMsgPerSec: broker,
        pgTxPerSec: pgRates,
        window: WINDOW,
        pgConnections: PG_CONNECTIONS,
        brokerMedian: b.median,
        pgMedian: p.median,
      },
      summary: { brokerMessagesPerSecond: b.median, postgresTxPerSecond: p.median },
    };
  },
};
