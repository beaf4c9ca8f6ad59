import { describe, expect, it } from "vitest";
import { coalesced } from "../src/coalesced.ts";

/** A statement whose calls the test finishes one by one. */
function manualStatement() {
  const calls: { ids: string[]; finish: (e?: Error) => void }[] = [];
  const statement = (ids: string[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ ids, finish: (e) => (e ? reject(e) : resolve()) });
    });
  return { calls, statement };
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

describe("coalesced bookkeeping statements", () => {
  it("ids that arrive while a statement runs go together in the next one", async () => {
    const { calls, statement } = manualStatement();
    const q = coalesced(statement);
    const a = q.run(["1"]);
    const b = q.run(["2", "3"]);
    const c = q.run(["4"]);
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

  it("a failed statement rejects exactly the callers it carried, and the next ones still run", async () => {
    const { calls, statement } = manualStatement();
    const q = coalesced(statement);
    const a = q.run(["1"]);
    const b = q.run(["2"]);
    calls[0]?.finish(new Error("database gone"));
    await expect(a).rejects.toThrow("database gone");
    expect(await settled(b)).toBe("pending");
    calls[1]?.finish();
    await expect(b).resolves.toBeUndefined();
    const c = q.run(["3"]);
    expect(calls.map((x) => x.ids)).toEqual([["1"], ["2"], ["3"]]);
    calls[2]?.finish();
    await expect(c).resolves.toBeUndefined();
  });
});
