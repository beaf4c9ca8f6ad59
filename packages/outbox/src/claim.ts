// How the relay claims rows: a seam, so a tool can compose a relay with another strategy. The default,
// `leasedClaim`, leases rows (FOR UPDATE SKIP LOCKED, next_attempt_at moved past the lease): fast path,
// sweep and other relay processes never publish the same row at once, and a dead claimer's rows come back
// when the lease expires (a duplicate, never a loss).
import type pg from "pg";
import { claimByIds } from "./sql/claim-by-ids.ts";
import { claimDue } from "./sql/claim-due.ts";
import type { ClaimedRow } from "./types.ts";

export interface ClaimStrategy {
  /** The sweep's claim: up to `limit` due pending rows, in table order. */
  due(pool: pg.Pool, limit: number, leaseMs: number): Promise<ClaimedRow[]>;
  /** The fast path's claim: these rows (one transaction's), if still pending and due. */
  byIds(pool: pg.Pool, messageIds: string[], leaseMs: number): Promise<ClaimedRow[]>;
  /**
   * True when a lease is all a claim takes: the writer may then insert a fast-path row already leased
   * (insertLeasedRows), which is that claim taken in the business transaction, one statement fewer per
   * commit. A strategy that claims otherwise leaves it unset and gets message ids to claim by `byIds`.
   */
  leaseAtInsert?: boolean;
}

export const leasedClaim: ClaimStrategy = { due: claimDue, byIds: claimByIds, leaseAtInsert: true };
