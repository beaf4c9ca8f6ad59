import type { ClaimedRow } from "../types.ts";

/** The columns every claim returns; payload as text so it is published without a parse/stringify. */
export const CLAIMED_COLUMNS = `o.id::text AS id, o.message_id::text AS message_id, o.event_type, o.aggregate_type,
  o.aggregate_id, o.payload::text AS payload, o.schema_version, o.headers, o.attempts, o.created_at,
  o.ordering_key, o.sequence::text AS sequence`;

// An ordered stream goes out one row at a time: a row of a key is claimable only while no older row of
// that key is open, pending (in flight, in backoff) or failed (held until an operator redrives it). So a
// row held back holds back the rows behind it, and other keys go on. Before the claim's FOR UPDATE SKIP
// LOCKED, a row another relay has leased is still pending here, so two relays never take a key at once.
// `c` is the candidate row's alias.
export const HEAD_OF_ITS_STREAM = `(c.ordering_key IS NULL OR NOT EXISTS (
         SELECT 1 FROM outbox h
          WHERE h.ordering_key = c.ordering_key AND h.sequence < c.sequence AND h.status IN (0, 9)))`;

export interface ClaimedRecord {
  id: string;
  message_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: string;
  schema_version: number;
  headers: Record<string, string> | null;
  attempts: number;
  created_at: Date;
  ordering_key: string | null;
  sequence: string | null;
}

export function toClaimedRow(r: ClaimedRecord): ClaimedRow {
  return {
    id: r.id,
    messageId: r.message_id,
    eventType: r.event_type,
    aggregateType: r.aggregate_type,
    aggregateId: r.aggregate_id,
    payload: r.payload,
    schemaVersion: r.schema_version,
    headers: r.headers ?? {},
    attempts: r.attempts,
    createdAt: r.created_at,
    orderingKey: r.ordering_key,
    sequence: r.sequence === null ? null : Number(r.sequence),
  };
}

/** Claims come back in table order so a batch publishes in commit order. */
export const byId = (a: ClaimedRow, b: ClaimedRow) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);
