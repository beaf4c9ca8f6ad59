// Which events a reply answers. The producer's outbox row of such an event becomes done (status 2) when
// the reply, carrying the event's message id as its causation id, is handled (markDone). Every other
// event is the last step of its exchange: its row is done as soon as the broker confirms it (the relay's
// OUTBOX_DONE_ON_CONFIRM). Services and the stack's relay processes both derive their lists from here.
import { EVENT_TYPES, type EventType } from "./registry.ts";

export const REPLIES = {
  "order.created": ["inventory.reserved", "inventory.rejected"],
  "order.confirmed": ["points.granted"],
  // Done after both: stock released and points reversed (or nothing to reverse).
  "order.cancelled": ["inventory.released", "points.reversed"],
} as const satisfies Partial<Record<EventType, readonly EventType[]>>;

const answered = (t: EventType): boolean => Object.hasOwn(REPLIES, t);

/** The event types of `publishes` that no reply answers: their outbox rows are done once confirmed. */
export const doneOnConfirm = (publishes: readonly EventType[]): EventType[] =>
  publishes.filter((t) => !answered(t));

/** The event types a service publishes, by the routing-key convention `<service>.<event>`. */
export const publishedBy = (service: string): EventType[] =>
  EVENT_TYPES.filter((t) => t.startsWith(`${service}.`));
