// @ts-check
// k6: Open-model load with no fault: the baseline.
// Rate, length, fault timeline and thresholds: ../scenarios/steady.json (`pnpm fault steady` reads it too).
// Run: see README.md beside this file.
import { defineRun } from "./lib/scenario.js";

const run = defineRun(JSON.parse(open("../scenarios/steady.json")));

export const options = run.options;
export const setup = run.setup;
export const orders = run.orders;
export const faults = run.faults;
export const teardown = run.teardown;
export const handleSummary = run.handleSummary;
