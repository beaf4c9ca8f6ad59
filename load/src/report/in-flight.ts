// What was in flight when each fault action started (the fault lab measures it: fault/in-flight.ts):
// the report's table, one row per action, and the short form the summary tables show.
import { esc, fmtNum } from "./html.ts";

export interface InFlightSample {
  /** Ms since the load started, when the measurement began (just before the action). */
  atMs: number;
  /** The fault action about to start ("kill -9 rabbit-2@localhost", "stop redis"...). */
  action: string;
  /** Ready + unacked per work queue, as the broker's management API last reported them; null: no answer. */
  queues: Record<string, number> | null;
  /** Outbox rows not yet published (status 0) per service; a service's null: its database did not answer. */
  outboxPending: Record<string, number | null>;
  /** This run's orders accepted and not yet final (PENDING); null when the order database did not answer. */
  ordersPending: number | null;
  /** Queue messages + pending outbox rows, over the parts that answered. */
  messages: number;
  /** False when a part did not answer (its figure is missing from the sums). */
  complete: boolean;
  /** How long the measurement took (it delays the action by that much). */
  tookMs: number;
}

const n = (v: number | null | undefined) => (v === null || v === undefined ? "?" : fmtNum(v));
const sum = (r: Record<string, number> | null) =>
  r === null ? null : Object.values(r).reduce((a, b) => a + b, 0);

/** "412 msgs, 130 orders" (a "?" where a part did not answer). */
export function fmtInFlight(s: InFlightSample): string {
  return `${fmtNum(s.messages)}${s.complete ? "" : "?"} msgs, ${n(s.ordersPending)} orders`;
}

/** The summary's cell: the first action's figures, and the largest when the fault had several actions. */
export function inFlightCell(samples: readonly InFlightSample[] | undefined): string {
  const [first] = samples ?? [];
  if (!samples || !first) return "—";
  if (samples.length === 1) return fmtInFlight(first);
  const peak = samples.reduce((m, s) => (s.messages > m.messages ? s : m), first);
  return `${fmtInFlight(first)} (max ${fmtNum(peak.messages)} msgs over ${samples.length} actions)`;
}

export function inFlightTable(samples: readonly InFlightSample[] | undefined): string {
  if (samples === undefined) return `<p class="note">In-flight figures were not measured for this run.</p>`;
  if (samples.length === 0) return `<p class="note">No fault action started during this run.</p>`;
  const queueNames = [...new Set(samples.flatMap((s) => Object.keys(s.queues ?? {})))].sort();
  const services = [...new Set(samples.flatMap((s) => Object.keys(s.outboxPending)))];
  const head = [
    `<th class="num">at</th><th>action</th>`,
    `<th class="num">messages</th><th class="num">orders not final</th>`,
    `<th class="num">in queues</th><th class="num">in outboxes</th>`,
    ...queueNames.map((q) => `<th class="num">${esc(q)}</th>`),
    ...services.map((svc) => `<th class="num">outbox ${esc(svc)}</th>`),
    `<th class="num">measured in</th>`,
  ].join("");
  const rows = samples
    .map((s) => {
      const outbox = Object.values(s.outboxPending);
      const outboxSum = outbox.some((v) => v === null)
        ? null
        : outbox.reduce<number>((a, b) => a + (b ?? 0), 0);
      const cells = [
        `<td class="num">${esc((s.atMs / 1000).toFixed(2))} s</td><td>${esc(s.action)}</td>`,
        `<td class="num">${esc(fmtNum(s.messages))}${s.complete ? "" : "?"}</td><td class="num">${esc(n(s.ordersPending))}</td>`,
        `<td class="num">${esc(n(sum(s.queues)))}</td><td class="num">${esc(n(outboxSum))}</td>`,
        ...queueNames.map((q) => `<td class="num">${esc(n(s.queues?.[q]))}</td>`),
        ...services.map((svc) => `<td class="num">${esc(n(s.outboxPending[svc]))}</td>`),
        `<td class="num">${esc(fmtNum(s.tookMs))} ms</td>`,
      ];
      return `<tr>${cells.join("")}</tr>`;
    })
    .join("");
  return `<table id="in-flight"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>
<p class="note">Measured right before each fault action. Messages: outbox rows not yet published (status 0)
in the three databases plus the three work queues' ready and unacked messages; the queue figures are the
broker's management statistics, which lag by up to its statistics interval (5 s by default). Orders not
final: this run's orders accepted and still PENDING. "?": a part did not answer within 2 s.</p>`;
}
