// One publish window: every message of a batch is published on the current confirm channel without
// waiting, then the confirms are awaited together (one awaited confirm per message caps a quorum queue at
// a few hundred messages a second; a window reaches thousands). Each message gets its own verdict.
import type { ConfirmChannel, Options } from "amqplib";
import type { ChannelKeeper } from "./confirm-channel.ts";
import type { ConfirmWindow } from "./confirm-window.ts";
import { type OutgoingMessage, type PublishOutcome, REASONS } from "./publisher-types.ts";
import { sleep } from "./sleep.ts";

export interface BatchDeps {
  keeper: ChannelKeeper;
  window: ConfirmWindow;
  /** Drops the connection and moves to another node. */
  recycle(reason: string): void;
  confirmTimeoutMs: number;
  recycleAfterNacks: number;
  maxMessageBytes: number;
}

interface NackRun {
  channel: ConfirmChannel | undefined;
  consecutive: number;
}

/**
 * The verdicts of one batch as they arrive. `done` resolves once every message was sent and none awaits a
 * confirm (an early confirm while later messages wait for a slot or a drain must not end the batch).
 */
class Batch {
  readonly out: (PublishOutcome | undefined)[];
  private pending = 0;
  private sending = true;
  private resolveDone: () => void = () => {};
  readonly done = new Promise<void>((r) => {
    this.resolveDone = r;
  });
  constructor(
    n: number,
    private readonly window: ConfirmWindow,
  ) {
    this.out = new Array(n).fill(undefined);
  }
  sent(): void {
    this.pending++;
  }
  hasPending(): boolean {
    return this.pending > 0;
  }
  allSent(): void {
    this.sending = false;
    if (this.pending === 0) this.resolveDone();
  }
  /** A confirm (or its failure) for a sent message; late answers after a timeout are ignored. */
  settle(i: number, o: PublishOutcome): void {
    if (this.out[i] !== undefined) return;
    this.out[i] = o;
    this.pending--;
    this.window.release();
    if (this.pending === 0 && !this.sending) this.resolveDone();
  }
}

/** The AMQP options a message is published with: persistent, and mandatory so an unroutable one comes back. */
export function propertiesOf(m: OutgoingMessage): Options.Publish {
  const props: Options.Publish = { persistent: true, ...m.properties, mandatory: true };
  // A message parked for having no id is republished without one, as it arrived.
  if (!props.messageId) delete props.messageId;
  return props;
}

async function waitForDrain(ch: ConfirmChannel, deadline: number): Promise<void> {
  await Promise.race([
    new Promise<void>((r) => {
      ch.once("drain", r);
      ch.once("close", r);
    }),
    sleep(Math.max(0, deadline - Date.now())),
  ]);
}

function onConfirm(
  d: BatchDeps,
  run: NackRun,
  batch: Batch,
  i: number,
  m: OutgoingMessage,
  err: unknown,
  sentAt: number,
) {
  if (!err) {
    run.consecutive = 0;
    const why = d.keeper.takeReturned(m.properties.messageId);
    const confirmed = { status: "confirmed", confirmSeconds: (performance.now() - sentAt) / 1000 } as const;
    batch.settle(i, why !== undefined ? { status: "refused", reason: why } : confirmed);
  } else if ((err as Error).message === "message nacked") {
    run.consecutive++;
    batch.settle(i, { status: "refused", reason: REASONS.nacked });
  } else batch.settle(i, { status: "unavailable", reason: (err as Error).message });
}

/** Publishes every message without waiting for confirms; returns the deadline for the last confirm. */
async function sendAll(
  d: BatchDeps,
  run: NackRun,
  ch: ConfirmChannel,
  msgs: OutgoingMessage[],
  batch: Batch,
) {
  let deadline = Date.now() + d.confirmTimeoutMs;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i] as OutgoingMessage;
    if (m.body.length > d.maxMessageBytes) {
      const reason = `message too large: ${m.body.length} > ${d.maxMessageBytes} bytes`;
      batch.out[i] = { status: "refused", reason };
      continue;
    }
    if (d.keeper.current() !== ch || !(await d.window.acquire(deadline))) {
      const reason = d.keeper.current() !== ch ? REASONS.channelLost : REASONS.windowFull;
      batch.out[i] = { status: "unavailable", reason };
      continue;
    }
    batch.sent();
    const sentAt = performance.now();
    try {
      const writable = ch.publish(m.exchange, m.routingKey, m.body, propertiesOf(m), (err: unknown) =>
        onConfirm(d, run, batch, i, m, err, sentAt),
      );
      if (!writable) await waitForDrain(ch, deadline);
    } catch (e) {
      // Thrown synchronously: a RangeError/TypeError is about this message (e.g. headers over 64 KiB);
      // anything else (IllegalOperationError: channel closed) is about the connection.
      const err = e as Error;
      const aboutMessage = err instanceof RangeError || err instanceof TypeError;
      batch.settle(i, { status: aboutMessage ? "refused" : "unavailable", reason: err.message });
    }
    deadline = Date.now() + d.confirmTimeoutMs;
  }
  batch.allSent();
  return deadline;
}

async function awaitConfirms(d: BatchDeps, ch: ConfirmChannel, batch: Batch, deadline: number) {
  if (!batch.hasPending()) return;
  const timedOut = await Promise.race([
    batch.done.then(() => false),
    sleep(Math.max(0, deadline - Date.now())).then(() => true),
  ]);
  if (!timedOut) return;
  for (let i = 0; i < batch.out.length; i++) {
    if (batch.out[i] === undefined)
      batch.settle(i, { status: "unavailable", reason: REASONS.confirmTimeout });
  }
  // Quorum lost or a broken channel: start over on another node rather than wait here forever.
  if (d.keeper.current() === ch) d.recycle(REASONS.confirmTimeout);
}

function absorbNackRun(d: BatchDeps, run: NackRun, ch: ConfirmChannel, out: (PublishOutcome | undefined)[]) {
  if (run.consecutive < d.recycleAfterNacks) return;
  // A run of nacks is about the channel or the queue (a channel broken by a leader election, a queue
  // out of quorum or full under reject-publish), not about these messages: report them unavailable so
  // no attempt is counted, and start over on another node.
  run.consecutive = 0;
  for (let i = 0; i < out.length; i++) {
    const o = out[i];
    if (o?.status === "refused" && o.reason === REASONS.nacked)
      out[i] = { status: "unavailable", reason: REASONS.nackRun };
  }
  if (d.keeper.current() === ch) d.recycle(REASONS.nackRun);
}

export function createBatchPublisher(
  d: BatchDeps,
): (messages: OutgoingMessage[]) => Promise<PublishOutcome[]> {
  const run: NackRun = { channel: undefined, consecutive: 0 };
  return async (messages) => {
    const ch = d.keeper.current();
    if (!ch) return messages.map(() => ({ status: "unavailable", reason: REASONS.notConnected }));
    // A new channel starts a new run.
    if (run.channel !== ch) {
      run.channel = ch;
      run.consecutive = 0;
    }
    const batch = new Batch(messages.length, d.window);
    const deadline = await sendAll(d, run, ch, messages, batch);
    await awaitConfirms(d, ch, batch, deadline);
    absorbNackRun(d, run, ch, batch.out);
    return batch.out as PublishOutcome[];
  };
}
