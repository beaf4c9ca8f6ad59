// @ts-check
// k6: Malformed JSON, unknown type, future version and missing message id published into the work queues.
// Rate, length, fault timeline and thresholds: ../scenarios/poison-messages.json (`pnpm fault poison-messages` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/poison-messages.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
