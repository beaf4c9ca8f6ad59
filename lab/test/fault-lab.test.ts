// The fault lab's short version, through the same code as `pnpm fault all`: every normal scenario
// loses nothing and applies nothing twice, every pitfall shows the damage it predicts, and the order
// API answers 2xx through the whole broker outage. Needs the local stack (`pnpm stack up`); slow
// (each scenario is 12 s of load plus the audit's settle and, for pitfalls, an apps restart).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openStack, restartAppsWith } from "@orderflow/infra";
import { afterAll, describe, expect, test } from "vitest";
import { runScenario } from "../src/run/run-scenario.ts";
import { SCENARIOS } from "../src/scenarios/index.ts";
import { localTarget } from "../src/targets/local.ts";

const stack = openStack(undefined, false);
/** Orders per second in CI's short runs (the lab's default is DEFAULT_RATE). */
const CI_RATE = 20;
const reportsDir = path.join(os.tmpdir(), `fault-lab-test-${process.pid}`);

describe("fault lab, short runs", () => {
  // Whatever failed, leave the apps as `stack up` made them: no lab switch, no proxy.
  afterAll(async () => {
    await restartAppsWith(stack, {});
    fs.rmSync(reportsDir, { recursive: true, force: true });
  }, 300_000);

  // Every scenario, each pitfall with its "-protected" pair; 12 s of load each (stretched to a
  // scenario's minimum) at CI_RATE, below the lab's default: CI has 60 minutes for every test, and each
  // scenario's settle, audit and apps restarts grow with the orders it offers. `pnpm fault all` is
  // where the default rate is shown (README's table). No drain after the audit: this reads verdicts,
  // not charts.
  for (const sc of SCENARIOS) {
    const promise =
      sc.kind === "pitfall"
        ? "the audit finds the damage it predicts"
        : "nothing lost, nothing applied twice";
    // The partitions need the nodes in namespaces (`stack up --netns`): scripts/partition-check.sh runs
    // them on such a stack, at the default rate.
    const unmet = sc.needs?.(stack, { replicas: 1, target: "local" });
    test.skipIf(unmet !== undefined)(
      `${sc.name}: ${promise}`,
      async () => {
        const r = await runScenario(localTarget(stack), sc, {
          durationMs: 12_000,
          rate: CI_RATE,
          drainMs: 0,
          long: false,
          reportsDir,
          log: () => {},
        });
        expect(r.expectation.checks.filter((c) => !c.ok)).toEqual([]);
        // Every fault script measures what is in flight before it acts.
        if (sc.fault) expect(r.inFlight?.length ?? 0).toBeGreaterThan(0);
        if (sc.name === "broker-outage")
          expect(r.outcome.availabilityDuringFaults).toBeGreaterThanOrEqual(0.99);
      },
      900_000,
    );
  }
});
