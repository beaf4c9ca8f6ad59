import { describe, expect, it } from "vitest";
import { createMarkQueue } from "../src/mark-queue.ts";

/** A markAll whose calls the test finishes one by one. */
function manualMarks() {
  const calls: { ids: string[]; finish: (e?: Error) => void }[] = [];
  const markAll = (ids: string[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ ids, finish: (e) => (e ? reject(e) : resolve()) });
    });
  return { calls, markAll };
}

const settled = async (p: Promise<unknown>) => {
  let state = "pending";
  p.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await new Promise((r) => setImmediate(r));
  return state;
};

describe("the mark queue", () => {
  it("marks that arrive while one is in flight go together in the next statement", async () => {
    const { calls, markAll } = manualMarks();
    const q = createMarkQueue(markAll);
    const a = q.mark(["1"]);
    const b = q.mark(["2", "3"]);
    const c = q.mark(["4"]);
    expect(calls.map((x) => x.ids)).toEqual([["1"]]);
    calls[0]?.finish();
    expect(await settled(a)).toBe("resolved");
    // b and c waited behind a: one statement for both, and neither resolves before it is done.
    expect(calls.map((x) => x.ids)).toEqual([["1"], ["2", "3", "4"]]);
    expect(await settled(b)).toBe("pending");
    calls[1]?.finish();
    expect(await settled(b)).toBe("resolved");
    expect(await settled(c)).toBe("resolved");
  });

  it("a failed statement rejects exactly the marks it carried, and the queue goes on", async () => {
    const { calls, markAll } = manualMarks();
    const q = createMarkQueue(markAll);
    const a = q.mark(["1"]);
    const b = q.mark(["2"]);
    calls[0]?.finish(new Error("database gone"));
    await expect(a).rejects.toThrow("database gone");
    expect(await settled(b)).toBe("pending");
    calls[1]?.finish();
    await expect(b).resolves.toBeUndefined();
    const c = q.mark(["3"]);
    expect(calls.map((x) => x.ids)).toEqual([["1"], ["2"], ["3"]]);
    calls[2]?.finish();
    await expect(c).resolves.toBeUndefined();
  });
});
