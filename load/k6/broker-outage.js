// @ts-check
// k6: All three broker nodes stopped for 20 s under load, then started.
// Rate, length, fault timeline and thresholds: ../scenarios/broker-outage.json (`pnpm fault broker-outage` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/broker-outage.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
