// The fault book's timed undo, with an action whose undo the test finishes by hand (the bookkeeping
// alone: what the real actions do is tested against the stack in faults.test.ts).

import type { ChaosEvent } from "@orderflow/infra";
import { eventually } from "@orderflow/testkit/eventually.ts";
import { expect, test } from "vitest";
import { type BookAction, createFaultBook } from "../src/faults/book.ts";

const event = (action: string): ChaosEvent => {
  const at = new Date().toISOString();
  return { action, target: "thing", startedAt: at, finishedAt: at };
};

test("a timed fault stays active, and holds its target, until its undo has finished", async () => {
  let undoStarted = false;
  let finishUndo: () => void = () => {};
  const stopThing: BookAction = {
    undoable: true,
    prepare: async () => ({
      holds: ["thing"],
      run: async () => event("stop-thing"),
      undo: async () => {
        undoStarted = true;
        await new Promise<void>((r) => {
          finishUndo = r;
        });
        return event("start-thing");
      },
    }),
  };
  const book = createFaultBook({ "stop-thing": stopThing });
  const fault = await book.apply({ action: "stop-thing", durationS: 1 });
  await eventually("the timed undo to start", () => undoStarted, { timeoutMs: 5_000, intervalMs: 10 });

  // The undo is under way: still active, its target still held, its waiters still waiting.
  expect(book.active().map((f) => f.id)).toEqual([fault.id]);
  await expect(book.apply({ action: "stop-thing" })).rejects.toMatchObject({
    status: 409,
    message: expect.stringContaining("is being brought back by the undo of stop-thing"),
  });
  let undone: string | undefined;
  const waiting = book.undone(fault.id).then((f) => {
    undone = f?.undoneAt;
  });
  const closing = book.close(); // waits for the undo under way rather than starting another
  // One turn of the event loop: nothing but finishUndo can resolve the waiter.
  await new Promise((r) => setImmediate(r));
  expect(undone).toBeUndefined();

  finishUndo();
  await Promise.all([waiting, closing]);
  expect(undone).toEqual(expect.any(String));
  expect(book.active()).toEqual([]);
  expect(book.history().map((f) => [f.id, f.undoneAt !== undefined])).toEqual([[fault.id, true]]);
});
