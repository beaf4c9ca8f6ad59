// Shim of the "k6" module (test code only): check, sleep, fail, group.
import { addSample, state } from "./state.mjs";

const nap = new Int32Array(new SharedArrayBuffer(4));

/** k6's sleep blocks its VU; so does this one. @param {number} seconds */
export function sleep(seconds) {
  if (seconds > 0) Atomics.wait(nap, 0, 0, seconds * 1000);
}

/** @param {unknown} value @param {Record<string, (v: unknown) => boolean>} sets */
export function check(value, sets) {
  let all = true;
  for (const [name, fn] of Object.entries(sets)) {
    let ok = false;
    try {
      ok = Boolean(fn(value));
    } catch {}
    state.checks.push({ name, ok, scenario: state.scenario });
    addSample("checks", "rate", ok ? 1 : 0);
    all &&= ok;
  }
  return all;
}

/** @param {string} [message] */
export function fail(message) {
  throw new Error(message ?? "fail()");
}

/** @param {string} _name @param {() => unknown} fn */
export const group = (_name, fn) => fn();

export default { check, sleep, fail, group };
