// pgExclusive: one run of a job at a time across pools (each pool stands for one instance of a service).
import { adminUrl, openStack } from "@orderflow/infra";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { pgExclusive } from "../src/index.ts";

const stack = openStack();
const instanceA = new pg.Pool({ connectionString: adminUrl(stack.pg), max: 2 });
const instanceB = new pg.Pool({ connectionString: adminUrl(stack.pg), max: 2 });
afterAll(async () => {
  await instanceA.end();
  await instanceB.end();
});

const job = () => `exclusive-test-${process.pid}-${Math.random()}`;

/** A run that stays inside its job until `release` is called. */
function heldRun() {
  let release = () => {};
  let entered = () => {};
  const inside = new Promise<void>((r) => {
    entered = r;
  });
  const done = new Promise<void>((r) => {
    release = r;
  });
  const fn = async () => {
    entered();
    await done;
    return "held";
  };
  return { inside, release, fn };
}

describe("pgExclusive", () => {
  it("skips a second instance's run while the first runs the same job, and runs it once the first ended", async () => {
    const name = job();
    const held = heldRun();
    const first = pgExclusive(instanceA)(name, held.fn);
    await held.inside;
    let secondRan = false;
    const second = await pgExclusive(instanceB)(name, async () => {
      secondRan = true;
    });
    expect(second).toEqual({ ran: false });
    expect(secondRan).toBe(false);
    held.release();
    expect(await first).toEqual({ ran: true, value: "held" });
    expect(await pgExclusive(instanceB)(name, async () => "after")).toEqual({ ran: true, value: "after" });
  });

  it("lets different jobs run at the same time", async () => {
    const held = heldRun();
    const first = pgExclusive(instanceA)(job(), held.fn);
    await held.inside;
    expect(await pgExclusive(instanceB)(job(), async () => "other")).toEqual({ ran: true, value: "other" });
    held.release();
    await first;
  });

  it("frees the job when the holder's connection dies, so another instance takes it over", async () => {
    const name = job();
    const held = heldRun();
    const pid = new Promise<number>((resolve) => {
      void pgExclusive(instanceA)(name, async () => {
        // The holder's own connection: the lock lives and dies with it.
        const r = await instanceB.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext($1)::oid AND granted",
          [name],
        );
        resolve(r.rows[0]?.pid as number);
        return held.fn();
      }).catch(() => {});
    });
    await held.inside;
    await instanceB.query("SELECT pg_terminate_backend($1)", [await pid]);
    const deadline = Date.now() + 10_000;
    let after = await pgExclusive(instanceB)(name, async () => "taken over");
    while (!after.ran && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await pgExclusive(instanceB)(name, async () => "taken over");
    }
    expect(after).toEqual({ ran: true, value: "taken over" });
    held.release();
  });
});
