// The alerts a scenario declares, checked against what Alertmanager held: each must have reached it
// because of the fault (its condition held after "fault injected", not left over from before) and
// resolved once the fault healed. Pure functions over the watcher's episodes and the run's events.

import type { Stack } from "@orderflow/infra";
import { labelText } from "@orderflow/load/report/alert-marks.ts";
import { faultWindows } from "@orderflow/load/report/derive.ts";
import type { RunEvent } from "@orderflow/load/result.ts";
import type { WatchedAlert } from "./alerts.ts";
import { check } from "./expectations.ts";
import type { DeclaredAlert, Expectation, ExpectedAlert } from "./scenario.ts";

/**
 * Prometheus evaluates a rule on the last scrape it has: a node that came back can still read as
 * down for one scrape plus one evaluation (5 s each), and the "fault healed" mark itself waits for
 * the node's queue members, so an alert whose condition began this soon after the mark is still the
 * fault's.
 */
export const SCRAPE_AND_EVAL_MS = 10_000;

/** A scenario's declared alerts, one per label set, from what its fault did. */
export function expectedAlerts(
  declared: readonly DeclaredAlert[] | undefined,
  facts: Record<string, unknown>,
  s: Stack,
): ExpectedAlert[] {
  return (declared ?? []).flatMap((d) =>
    (d.each?.(facts, s) ?? [{}]).map((labels) => ({ name: d.name, labels })),
  );
}

export const alertTitle = (e: ExpectedAlert) =>
  `${e.name}${Object.keys(e.labels).length > 0 ? `{${labelText(e.labels)}}` : ""}`;

const matches = (a: WatchedAlert, e: ExpectedAlert) =>
  a.name === e.name && Object.entries(e.labels).every(([k, v]) => a.labels[k] === v);

/** The fault marks the checks measure from: the first "fault injected" and the last "fault healed". */
export function faultSpan(
  events: readonly RunEvent[],
  endMs: number,
): { injectedMs: number; healedMs: number } | null {
  const w = faultWindows(events, endMs);
  const first = w[0];
  const last = w.at(-1);
  return first && last ? { injectedMs: first.fromMs, healedMs: last.toMs } : null;
}

/** The episode that answers an expected alert: the first that began with or after the fault. */
export function episodeFor(
  e: ExpectedAlert,
  alerts: readonly WatchedAlert[],
  injectedMs: number,
): WatchedAlert | undefined {
  return alerts.find((a) => matches(a, e) && !a.activeAtStart && a.firstSeenMs >= injectedMs);
}

/** True once every expected alert has an episode that fired after the fault and resolved. */
export function allFiredAndResolved(
  expected: readonly ExpectedAlert[],
  alerts: readonly WatchedAlert[],
  injectedMs: number,
): boolean {
  return expected.every((e) => (episodeFor(e, alerts, injectedMs)?.resolvedMs ?? null) !== null);
}

const rel = (ms: number, fromMs: number, mark: string) => {
  const d = (ms - fromMs) / 1000;
  return `${Math.abs(d).toFixed(1)} s ${d >= 0 ? "after" : "before"} "${mark}"`;
};

export function alertChecks(
  expected: readonly ExpectedAlert[],
  alerts: readonly WatchedAlert[],
  events: readonly RunEvent[],
  endMs: number,
  /** How the watching went: polls made, polls that failed, and when it stopped (run clock). */
  watch: { polls: number; failedPolls: number; untilMs: number },
): Expectation["checks"] {
  const span = faultSpan(events, endMs);
  return expected.flatMap((e) => {
    const title = alertTitle(e);
    const fired = `alert ${title} reached Alertmanager during the fault`;
    const resolved = `alert ${title} resolved after the fault healed`;
    if (span === null)
      return [check(fired, false, "no fault was marked"), check(resolved, false, "no fault was marked")];
    const ep = episodeFor(e, alerts, span.injectedMs);
    if (!ep) {
      const others = alerts.filter((a) => a.name === e.name);
      const seen =
        others.length === 0
          ? `never seen in ${watch.polls} poll(s)`
          : `seen only ${others.map((a) => `${alertTitle(a)} ${a.activeAtStart ? `active since before the run (${(a.startsAtMs / 1000).toFixed(1)} s), so this fault's own could not be told apart` : `at ${(a.firstSeenMs / 1000).toFixed(1)} s`}`).join(", ")}`;
      const detail = `${seen}${watch.failedPolls > 0 ? `; ${watch.failedPolls} poll(s) of Alertmanager failed` : ""}`;
      return [check(fired, false, detail), check(resolved, false, "it never fired")];
    }
    const inFault =
      ep.startsAtMs >= span.injectedMs - 1_000 && ep.startsAtMs <= span.healedMs + SCRAPE_AND_EVAL_MS;
    return [
      check(
        fired,
        inFault,
        `condition held from ${rel(ep.startsAtMs, span.injectedMs, "fault injected")}, in Alertmanager ${rel(ep.firstSeenMs, span.injectedMs, "fault injected")} (fault healed ${((span.healedMs - span.injectedMs) / 1000).toFixed(1)} s after it)`,
      ),
      check(
        resolved,
        ep.resolvedMs !== null,
        ep.resolvedMs === null
          ? `still active when the lab stopped watching, ${rel(watch.untilMs, span.healedMs, "fault healed")}`
          : `resolved ${rel(ep.resolvedMs, span.healedMs, "fault healed")}`,
      ),
    ];
  });
}
