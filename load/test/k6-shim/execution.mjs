// Shim of "k6/execution" (test code only): the iteration and scenario the runner says, test.fail.
import { state } from "./state.mjs";

const exec = {
  scenario: {
    get name() {
      return state.scenario;
    },
    get iterationInTest() {
      return state.iterationInTest;
    },
  },
  vu: { idInTest: 1 },
  test: {
    /** @param {string} [reason] */
    fail(reason) {
      state.testFailed.push(reason ?? "test.fail()");
    },
    /** @param {string} [reason] */
    abort(reason) {
      throw new Error(`test.abort: ${reason ?? ""}`);
    },
  },
};

export default exec;
