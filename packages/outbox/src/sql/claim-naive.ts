import type pg from "pg";
import type { ClaimedRow } from "../types.ts";
import { byId, CLAIMED_COLUMNS, type ClaimedRecord, toClaimedRow } from "./row.ts";

// FAULT LAB ONLY (ORDERFLOW_LAB_PITFALL=no-claim-cas): the claim as a naive relay writes it: read the
// pending rows, no lease, no lock, no compare-and-set. Every claimer that reads a row before it is
// marked publishes it, so the fast path, the in-process sweep and the relay process publish the same
// row several times. The lab shows the consumers' inboxes absorbing those copies.
const DUE = `SELECT ${CLAIMED_COLUMNS} FROM outbox o
 WHERE status = 0 AND next_attempt_at <= now() ORDER BY next_attempt_at, id LIMIT $1`;
const BY_IDS = `SELECT ${CLAIMED_COLUMNS} FROM outbox o
 WHERE message_id = ANY($1::uuid[]) AND status = 0 AND next_attempt_at <= now() ORDER BY id`;

export async function claimDueNaive(pool: pg.Pool, limit: number): Promise<ClaimedRow[]> {
  const r = await pool.query<ClaimedRecord>(DUE, [limit]);
  return r.rows.map(toClaimedRow).sort(byId);
}

export async function claimByIdsNaive(pool: pg.Pool, messageIds: string[]): Promise<ClaimedRow[]> {
  if (messageIds.length === 0) return [];
  const r = await pool.query<ClaimedRecord>(BY_IDS, [messageIds]);
  return r.rows.map(toClaimedRow).sort(byId);
}
