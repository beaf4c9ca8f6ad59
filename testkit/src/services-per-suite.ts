// Component tests (infra/, packages/) drive the real work queues directly, so the services, which consume
// those queues, are held stopped while they run; system tests (services/ and the harness: lab/, control/,
// load/) need them running.
// The sequencer (testkit/src/sequencer.ts) runs every component test first, so the services stop once and
// start once. Holding is recorded in the stack folder, so it works across vitest's worker processes.
import {
  appsStatus,
  healInfrastructure,
  holdApps,
  infrastructureParts,
  openStack,
  releaseApps,
} from "@orderflow/infra";
import { beforeAll } from "vitest";
import { isSystemTest } from "./test-kind.ts";

// biome-ignore lint/correctness/noEmptyPattern: vitest requires a destructured first argument; the file is the second
beforeAll(async ({}, suite) => {
  let stack: ReturnType<typeof openStack>;
  try {
    stack = openStack(undefined, false);
  } catch {
    return; // no stack at all: the test itself will say so
  }
  // A file that failed half-way through a chaos test may have left a node or Redis down: start it
  // again here, so one failure stays in its own file instead of failing every file after it.
  // Everything down means someone ran `stack down`: that is not ours to undo.
  if (infrastructureParts(stack).every((p) => p.pid === undefined)) return;
  const repaired = await healInfrastructure(stack);
  if (repaired.length > 0) console.warn(`[test setup] found down and started again: ${repaired.join(", ")}`);
  if ((await appsStatus(stack)).length === 0) return; // started with --no-apps
  const file = (suite as { file?: { filepath?: string } }).file?.filepath;
  if (!file)
    throw new Error(
      "vitest did not pass the test file to beforeAll: cannot tell component from system tests",
    );
  if (isSystemTest(file)) await releaseApps(stack);
  else await holdApps(stack);
}, 120_000);
