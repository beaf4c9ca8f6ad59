// @ts-check
// k6: PostgreSQL (all three databases) restarted under load.
// Rate, length, fault timeline and thresholds: ../scenarios/db-restart.json (`pnpm fault db-restart` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/db-restart.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
