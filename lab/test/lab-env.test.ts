// The lab's variant processes refuse a configuration they cannot honour, naming the variable.
import { expect, test } from "vitest";
import { labEnvVariables, readLabEnv } from "../src/pitfalls/env.ts";
import { LAB_PITFALLS } from "../src/pitfalls/pitfalls.ts";

test("no lab variables means every protection on", () => {
  expect(readLabEnv({})).toEqual({
    pitfall: undefined,
    rollbackRate: 0,
    failShare: 0,
    streamFailEvery: 0,
  });
});

test("an unknown pitfall is refused with the list of known ones", () => {
  expect(() => readLabEnv({ ORDERFLOW_LAB_PITFALL: "no-outbox" })).toThrow(
    `ORDERFLOW_LAB_PITFALL must be one of ${LAB_PITFALLS.join(", ")}, got "no-outbox"`,
  );
});

test("a share of failing first deliveries outside 0..1 is refused", () => {
  expect(() => readLabEnv({ ORDERFLOW_LAB_FAIL_SHARE: "-0.1" })).toThrow(
    `ORDERFLOW_LAB_FAIL_SHARE must be a number 0-1, got "-0.1"`,
  );
});

test("a stream failure interval that is not a whole number is refused", () => {
  expect(() => readLabEnv({ ORDERFLOW_LAB_STREAM_FAIL_EVERY: "2.5" })).toThrow(
    /ORDERFLOW_LAB_STREAM_FAIL_EVERY must be/,
  );
});

test("a rollback rate outside 0..1 is refused", () => {
  expect(() => readLabEnv({ ORDERFLOW_LAB_ROLLBACK_RATE: "1.5" })).toThrow(
    `ORDERFLOW_LAB_ROLLBACK_RATE must be a number 0-1, got "1.5"`,
  );
  expect(() => readLabEnv({ ORDERFLOW_LAB_ROLLBACK_RATE: "abc" })).toThrow(
    /ORDERFLOW_LAB_ROLLBACK_RATE must be a number 0-1/,
  );
});

test("a lab configuration survives the trip through the variables", () => {
  for (const pitfall of LAB_PITFALLS)
    expect(
      readLabEnv(labEnvVariables({ pitfall, rollbackRate: 0.1, failShare: 0.05, streamFailEvery: 4 })),
    ).toEqual({ pitfall, rollbackRate: 0.1, failShare: 0.05, streamFailEvery: 4 });
});
