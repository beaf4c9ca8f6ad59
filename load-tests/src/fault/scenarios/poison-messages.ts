// Malformed and unknown messages published straight into the work queues (as the broker admin) while
// the load runs: each must be parked with its reason, and nothing else parked or lost.
import { amqpUrls, type Stack } from "@orderflow/infra";
import amqp from "amqplib";
import { check, expectNoDamage } from "../expectations.ts";
import type { FaultContext, Scenario } from "../scenario.ts";

interface Poison {
  reason: string;
  content: string;
  options: amqp.Options.Publish;
}

const poisons = (tag: string): Poison[] => [
  {
    reason: "malformed-json",
    content: "{not json",
    options: { messageId: `${tag}-bad-json`, type: "order.created" },
  },
  { reason: "unknown-type", content: "{}", options: { messageId: `${tag}-unknown`, type: "order.exploded" } },
  {
    reason: "unsupported-version",
    content: JSON.stringify({ orderId: "x" }),
    options: { messageId: `${tag}-v99`, type: "order.created", headers: { "x-schema-version": 99 } },
  },
  { reason: "missing-message-id", content: "{}", options: { type: "order.created" } },
];

const QUEUES = ["inventory.order-events", "points.order-events"];

/** Publishes the four poisons into both work queues as the broker admin; returns how many. */
async function publishPoison(s: Stack, tag: string): Promise<number> {
  const conn = await amqp.connect(amqpUrls(s, "admin")[0] as string);
  try {
    const ch = await conn.createConfirmChannel();
    let n = 0;
    for (const q of QUEUES)
      for (const p of poisons(`${tag}-${q}`)) {
        ch.sendToQueue(q, Buffer.from(p.content), {
          persistent: true,
          contentType: "application/json",
          ...p.options,
        });
        n++;
      }
    await ch.waitForConfirms();
    return n;
  } finally {
    await conn.close();
  }
}

/** The fault script: 30% into the load, the poison into both work queues (facts.poisonPublished). */
export async function injectPoison(ctx: FaultContext): Promise<void> {
  await ctx.sleep(ctx.durationMs * 0.3);
  ctx.mark("fault injected: poison published");
  ctx.facts.poisonPublished = await publishPoison(ctx.stack, `poison-${Date.now().toString(36)}`);
  ctx.mark("fault healed: (nothing to heal)");
}

export const poisonMessages: Scenario = {
  name: "poison-messages",
  kind: "normal",
  summary:
    "Malformed JSON, unknown type, future version and missing message id published into the work queues.",
  fault: injectPoison,
  expect: (o) => {
    const published = Number(o.facts.poisonPublished ?? 0);
    return expectNoDamage(
      o,
      [check("every poison message parked", published === QUEUES.length * 4, `published ${published}`)],
      published,
    );
  },
};
