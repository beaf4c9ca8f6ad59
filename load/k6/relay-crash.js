// @ts-check
// k6: relay:order (and relay:inventory) SIGKILLed every 2 s under load.
// Rate, length, fault timeline and thresholds: ../scenarios/relay-crash.json (`pnpm fault relay-crash` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/relay-crash.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
