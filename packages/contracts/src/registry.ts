// The one list of event types, their schema versions and which version producers write today.
// A new version is added beside the old one; consumers keep accepting every version listed here.
import type { z } from "zod";
import {
  inventoryRejectedV1,
  inventoryReleasedV1,
  inventoryReservedV1,
  inventoryReservedV2,
  inventoryStockChangedV1,
  orderCancelledV1,
  orderConfirmedV1,
  orderCreatedV1,
  pointsGrantedV1,
  pointsReversedV1,
} from "./events.ts";

export const contracts = {
  "order.created": { current: 1, versions: { 1: orderCreatedV1 } },
  "order.confirmed": { current: 1, versions: { 1: orderConfirmedV1 } },
  "order.cancelled": { current: 1, versions: { 1: orderCancelledV1 } },
  "inventory.reserved": { current: 2, versions: { 1: inventoryReservedV1, 2: inventoryReservedV2 } },
  "inventory.rejected": { current: 1, versions: { 1: inventoryRejectedV1 } },
  "inventory.released": { current: 1, versions: { 1: inventoryReleasedV1 } },
  "inventory.stock-changed": { current: 1, versions: { 1: inventoryStockChangedV1 }, ordered: true },
  "points.granted": { current: 1, versions: { 1: pointsGrantedV1 } },
  "points.reversed": { current: 1, versions: { 1: pointsReversedV1 } },
} as const;

export type EventType = keyof typeof contracts;
export const EVENT_TYPES = Object.keys(contracts) as EventType[];

type Versions<T extends EventType> = (typeof contracts)[T]["versions"];
/** The payload of event type T in any version a consumer may receive. */
export type EventPayload<T extends EventType> = z.infer<Versions<T>[keyof Versions<T>]>;

export const isEventType = (t: string): t is EventType => Object.hasOwn(contracts, t);

export function currentVersion(type: EventType): number {
  return contracts[type].current;
}

/**
 * True when the type is an ordered stream: an entry above with `ordered: true`. Its events are applied in
 * the order their outbox rows were written, per aggregate (the outbox gives each a sequence number per
 * aggregate, and publishes an aggregate's rows one after another).
 */
export function orderedByAggregate(type: EventType): boolean {
  const entry = contracts[type];
  return "ordered" in entry && entry.ordered === true;
}
