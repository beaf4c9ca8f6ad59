// Shim of "k6/metrics" (test code only): every add() is recorded with its tags.
import { addSample } from "./state.mjs";

/** @param {string} type */
const metric = (type) =>
  class {
    /** @param {string} name */
    constructor(name) {
      this.name = name;
    }
    /** @param {number | boolean} value @param {Record<string, string>} [tags] */
    add(value, tags) {
      addSample(this.name, type, Number(value), tags);
    }
  };

export const Counter = metric("counter");
export const Gauge = metric("gauge");
export const Rate = metric("rate");
export const Trend = metric("trend");
