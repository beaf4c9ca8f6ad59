// The ack ledger alone (pure bookkeeping): which basic.ack frames go out, for which tags.
import type { Channel, ConsumeMessage } from "amqplib";
import { describe, expect, it } from "vitest";
import { createAckLedger } from "../src/ack-ledger.ts";

function fakeChannel() {
  const acks: [number, boolean][] = [];
  const ch = {
    ack: (m: ConsumeMessage, multiple?: boolean) => acks.push([m.fields.deliveryTag, multiple ?? false]),
  } as unknown as Channel;
  return { ch, acks };
}
/** The ledger flushes once per turn of the event loop. */
const turn = () => new Promise<void>((r) => setImmediate(r));
const msg = (tag: number) => ({ fields: { deliveryTag: tag } }) as ConsumeMessage;

describe("ack ledger", async () => {
  it("acks a whole batch with one multiple ack up to its last tag", async () => {
    const { ch, acks } = fakeChannel();
    const l = createAckLedger(ch, () => {});
    const m = [1, 2, 3, 4].map(msg);
    for (const x of m) l.delivered(x);
    for (const x of m.slice(0, 3)) l.ack(x);
    await turn();
    expect(acks).toEqual([[3, true]]);
  });

  it("holds acks behind a delivery still being worked on, and sends them when it is settled", async () => {
    const { ch, acks } = fakeChannel();
    const l = createAckLedger(ch, () => {});
    const m = [1, 2, 3, 4, 5].map(msg);
    for (const x of m) l.delivered(x);
    l.ack(m[1] as ConsumeMessage);
    l.ack(m[2] as ConsumeMessage);
    await turn();
    expect(acks).toEqual([]);
    l.ack(m[0] as ConsumeMessage);
    await turn();
    expect(acks).toEqual([[3, true]]);
  });

  it("a rejected delivery does not hold back the acks behind it, and is never acked", async () => {
    const { ch, acks } = fakeChannel();
    const l = createAckLedger(ch, () => {});
    const m = [1, 2, 3].map(msg);
    for (const x of m) l.delivered(x);
    l.ack(m[2] as ConsumeMessage);
    l.settledElsewhere(m[0] as ConsumeMessage);
    await turn();
    expect(acks).toEqual([]);
    l.ack(m[1] as ConsumeMessage);
    await turn();
    expect(acks).toEqual([[3, true]]);
    // Rejected last: nothing to ack.
    const n = [4, 5].map(msg);
    for (const x of n) l.delivered(x);
    l.ack(n[0] as ConsumeMessage);
    l.settledElsewhere(n[1] as ConsumeMessage);
    await turn();
    expect(acks).toEqual([
      [3, true],
      [4, true],
    ]);
  });

  it("a second settle of the same delivery sends nothing more", async () => {
    const { ch, acks } = fakeChannel();
    const l = createAckLedger(ch, () => {});
    const a = msg(1);
    l.delivered(a);
    l.ack(a);
    l.ack(a);
    l.settledElsewhere(a);
    await turn();
    expect(acks).toEqual([[1, true]]);
  });

  it("a closed channel's ack error is reported, not thrown", async () => {
    const errors: string[] = [];
    const ch = {
      ack: () => {
        throw new Error("Channel closed");
      },
    } as unknown as Channel;
    const l = createAckLedger(ch, (e) => errors.push(e.message));
    const a = msg(1);
    l.delivered(a);
    expect(() => l.ack(a)).not.toThrow();
    await turn();
    expect(errors).toEqual(["Channel closed"]);
  });
});
