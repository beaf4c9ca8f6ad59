// What the shimmed k6 modules record while a script runs (test code: it lets k6-scripts.test.ts run a
// k6 script's functions under node and look at what they did; it is no load tool).

export const state = {
  /** The k6 scenario whose function runs now ("" in setup and teardown). */
  scenario: "",
  iterationInTest: 0,
  /** @type {{ method: string, url: string, status: number, scenario: string, headers: Record<string, string>, body: string | null, responseBody: string, durationMs: number, failed: boolean }[]} */
  requests: [],
  /** @type {{ name: string, ok: boolean, scenario: string }[]} */
  checks: [],
  /** @type {Record<string, { type: string, samples: { value: number, tags: Record<string, string> }[] }>} */
  metrics: {},
  /** exec.test.fail's messages. */
  /** @type {string[]} */
  testFailed: [],
};

/** @param {string} name @param {string} type @param {number} value @param {Record<string, string>} [tags] */
export function addSample(name, type, value, tags = {}) {
  const m = state.metrics[name] ?? { type, samples: [] };
  state.metrics[name] = m;
  m.samples.push({ value, tags: { ...(state.scenario ? { scenario: state.scenario } : {}), ...tags } });
}
