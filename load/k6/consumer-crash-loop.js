// @ts-check
// k6: inventory and points SIGKILLed alternately every 3 s under load (the supervisor restarts them).
// Rate, length, fault timeline and thresholds: ../scenarios/consumer-crash-loop.json (`pnpm fault consumer-crash-loop` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/consumer-crash-loop.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
