// The bench's check of the stack names held services and how to release them. A component test run holds
// the apps (testkit/src/services-per-suite.ts), and one that ends without releasing them leaves them held;
// the supervisor does not restart a held app, so "does not answer" alone would send the user looking.
import { holdApps, openStack } from "@orderflow/infra";
import { describe, expect, test } from "vitest";
import { checkStack } from "../src/preflight.ts";

const stack = openStack(undefined, false);

describe("the bench's stack check", () => {
  test("names each held service and the command that lets it run again", async () => {
    await holdApps(stack); // as this file's setup left them already: a component test
    expect(await checkStack(stack, true)).toEqual(
      ["order", "inventory", "points"].map(
        (s) => `${s} service is held stopped: \`pnpm stack chaos start ${s}\` lets it run again`,
      ),
    );
  });

  test("asks nothing of the services for the sections that do not need them", async () => {
    await holdApps(stack);
    expect(await checkStack(stack, false)).toEqual([]);
  });
});
