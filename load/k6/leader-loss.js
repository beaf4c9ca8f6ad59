// @ts-check
// k6: kill -9 of the quorum leader of inventory.order-events under load; restarted later.
// Rate, length, fault timeline and thresholds: ../scenarios/leader-loss.json (`pnpm fault leader-loss` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/leader-loss.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
