import type { ClaimedRow } from "../types.ts";

/** The columns every claim returns; payload as text so it is published without a parse/stringify. */
export const CLAIMED_COLUMNS = `o.id::text AS id, o.message_id::text AS message_id, o.event_type, o.aggregate_type,
  o.aggregate_id, o.payload::text AS payload, o.schema_version, o.headers, o.attempts, o.created_at`;

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
  };
}

/** Claims come back in table order so a batch publishes in commit order. */
export const byId = (a: ClaimedRow, b: ClaimedRow) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);
