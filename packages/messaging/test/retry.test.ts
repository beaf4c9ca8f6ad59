import { pgTransaction, type RunTransaction } from "@orderflow/db";
import { waitFor } from "@orderflow/infra";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type Handlers, PARK_HEADERS, parkingQueue, TransientError } from "../src/index.ts";
import { startTestConsumer, WORK_QUEUE } from "./helpers/consumer.ts";
import { recordEffect } from "./helpers/db.ts";
import { buildOrderCreated } from "./helpers/factories.ts";
import { consumerSuite } from "./helpers/suite.ts";

const suite = consumerSuite("retry");
const { s, running } = suite;

// The broker expires a message in a retry tier by its own clock (Erlang's system time, which corrects
// toward the OS clock gradually instead of stepping), and this test reads the OS clock: a clean-clone CI
// run once measured 4,989 ms for the 5 s tier. A tenth of a second of slack still tells each tier from
// the next (1 s, 5 s, 30 s).
const CLOCK_SLACK_MS = 100;

interface Seen {
  at: number;
  attempt: number;
  xDeath: { queue: string; reason: string; count: number }[];
}

describe("retry tiers", () => {
  it("a transient failure is retried after 1 s then 5 s and succeeds; x-death shows each hop", async () => {
    const seen: Seen[] = [];
    const handlers: Handlers = {
      "order.created": async (ev, tx) => {
        const xDeath = ((ev.headers["x-death"] ?? []) as Record<string, unknown>[]).map((d) => ({
          queue: String(d.queue),
          reason: String(d.reason),
          count: Number(d.count),
        }));
        seen.push({ at: Date.now(), attempt: ev.attempt, xDeath });
        if (ev.attempt < 2) throw new TransientError("database unavailable");
        await recordEffect(tx, "retry", ev.envelope.messageId, ev.payload.orderId);
      },
    };
    const c = await startTestConsumer(s, suite.db, { consumerName: "retry", handlers });
    running.push(c);
    const id = await suite.broker.publishEvent("order.created", buildOrderCreated());
    await waitFor("applied", () => c.outcomes.some((o) => o.kind === "done"), { timeoutMs: 30_000 });

    expect(seen.map((x) => x.attempt)).toEqual([0, 1, 2]);
    const [a, b, d] = seen as [Seen, Seen, Seen];
    expect(b.at - a.at).toBeGreaterThanOrEqual(1_000 - CLOCK_SLACK_MS);
    expect(d.at - b.at).toBeGreaterThanOrEqual(5_000 - CLOCK_SLACK_MS);
    expect(c.outcomes.map((o) => o.kind)).toEqual(["retried", "retried", "done"]);
    expect(c.outcomes[1]).toMatchObject({ tier: "5s", attempt: 2 });
    const hops = d.xDeath.map((x) => `${x.queue}:${x.reason}:${x.count}`).sort();
    expect(hops).toEqual([`${WORK_QUEUE}.retry.1s:expired:1`, `${WORK_QUEUE}.retry.5s:expired:1`]);
    expect((await suite.db.effects()).filter((e) => e.message_id === id)).toHaveLength(1);
    console.log(
      `retry timeline: ${seen.map((x) => `attempt ${x.attempt} at +${x.at - a.at} ms`).join(", ")}; x-death ${hops.join(", ")}`,
    );
  });

  it("parks a message whose retries are exhausted, with the last error", async () => {
    const handlers: Handlers = {
      "order.created": async () => {
        throw new TransientError("still down");
      },
    };
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "exhausted",
      handlers,
      retrySchedule: ["1s"],
    });
    running.push(c);
    const id = await suite.broker.publishEvent("order.created", buildOrderCreated());
    await waitFor("parked", () => c.outcomes.some((o) => o.kind === "parked"), { timeoutMs: 20_000 });
    expect(c.outcomes.map((o) => o.kind)).toEqual(["retried", "parked"]);
    const [parked] = await waitFor("in the parking lot", async () => {
      const m = await suite.broker.drain(parkingQueue(WORK_QUEUE));
      return m.length > 0 ? m : undefined;
    });
    expect(parked?.properties.messageId).toBe(id);
    expect(parked?.properties.headers?.[PARK_HEADERS.reason]).toBe("attempts-exhausted");
    expect(String(parked?.properties.headers?.[PARK_HEADERS.detail])).toMatch(/still down/);
  });

  it("a database that cannot be reached before the handler does not spend attempts: retried until it is back", async () => {
    // A real connection failure: a pool pointing at a closed port, for the first three transactions.
    const down = new pg.Pool({
      connectionString: "postgres://x:y@127.0.0.1:1/none",
      connectionTimeoutMillis: 500,
    });
    let calls = 0;
    const flaky: RunTransaction = (fn) => (++calls <= 3 ? pgTransaction(down, fn) : suite.db.transaction(fn));
    const c = await startTestConsumer(s, suite.db, {
      consumerName: "db-down",
      transaction: flaky,
      retrySchedule: ["1s"],
    });
    running.push(c);
    const id = await suite.broker.publishEvent("order.created", buildOrderCreated());
    await waitFor("applied", () => c.outcomes.some((o) => o.kind === "done"), { timeoutMs: 20_000 });
    await down.end();
    expect(c.outcomes.map((o) => o.kind)).toEqual(["retried", "retried", "retried", "done"]);
    expect(
      c.outcomes.slice(0, 3).every((o) => o.kind === "retried" && o.infrastructure && o.attempt === 0),
    ).toBe(true);
    expect((await suite.db.effects()).filter((e) => e.message_id === id)).toHaveLength(1);
  });
});
