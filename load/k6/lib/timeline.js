// @ts-check
// A definition's fault steps -> the POST /faults calls of a run, in time order. Times in a definition
// are seconds of a run of its durationS: a run of another length scales atS and untilS (as `pnpm fault
// --duration` does), never a fault's own durationS or a loop's everyS.

/**
 * @typedef {object} FaultStep
 * @property {number} atS
 * @property {string} action
 * @property {string} [target]
 * @property {number} [durationS] a timed fault: undone that long after it fired
 * @property {number} [everyS] fire again every everyS seconds until untilS
 * @property {number} [untilS] a loop's end, or when a held fault is undone
 *
 * @typedef {object} ScenarioDefinition
 * @property {string} name
 * @property {string} summary
 * @property {number} rate
 * @property {number} durationS
 * @property {number} [minDurationS]
 * @property {number} settleS
 * @property {FaultStep[]} faults
 * @property {number} [parked]
 * @property {{ http_req_failed?: string[], http_req_duration?: string[], checks?: string[] }} thresholds
 *
 * @typedef {object} Firing one POST /faults
 * @property {number} atS seconds from the start of the run
 * @property {string} action
 * @property {string} [target]
 * @property {number} [durationS]
 * @property {boolean} repeated a step of a loop: a 409 (its target is still down) is skipped, not a failure
 */

/**
 * @param {ScenarioDefinition} def
 * @param {number} runS the run's length
 * @param {number} [holdCapS] caps every fault's own length (FAULT_HOLD_S)
 * @returns {Firing[]}
 */
export function expandTimeline(def, runS, holdCapS) {
  const scale = runS / def.durationS;
  // POST /faults takes whole seconds, at least one.
  const hold = (/** @type {number} */ s) => Math.max(1, Math.round(holdCapS ? Math.min(s, holdCapS) : s));
  /** @type {Firing[]} */
  const out = [];
  for (const f of def.faults) {
    const base = { action: f.action, ...(f.target ? { target: f.target } : {}) };
    const at = f.atS * scale;
    if (f.everyS !== undefined && f.untilS !== undefined) {
      for (let t = at; t < f.untilS * scale; t += f.everyS) out.push({ ...base, atS: t, repeated: true });
    } else if (f.untilS !== undefined) {
      out.push({ ...base, atS: at, durationS: hold((f.untilS - f.atS) * scale), repeated: false });
    } else {
      const timed = f.durationS === undefined ? {} : { durationS: hold(f.durationS) };
      out.push({ ...base, atS: at, ...timed, repeated: false });
    }
  }
  return out.sort((a, b) => a.atS - b.atS);
}
