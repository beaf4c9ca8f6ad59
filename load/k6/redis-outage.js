// @ts-check
// k6: Redis stopped for the middle of the run, then started.
// Rate, length, fault timeline and thresholds: ../scenarios/redis-outage.json (`pnpm fault redis-outage` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/redis-outage.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
