// GET /audit?since=<ISO>[&prefix=P][&settleS=N]: the fault lab's audit of every order since then.
import { HttpProblem } from "@orderflow/http";
import type { FastifyInstance } from "fastify";
import {
  type AuditQuery,
  type AuditSinceResult,
  AuditTooLargeError,
  MAX_SETTLE_S,
  PREFIX,
} from "./audit-since.ts";

const KEYS = new Set(["since", "prefix", "settleS"]);
// A date, optionally with a time and zone: what toISOString() and k6's `new Date().toISOString()` give.
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function parseQuery(query: unknown): AuditQuery {
  const q = (query ?? {}) as Record<string, unknown>;
  const bad = (detail: string) => new HttpProblem("VALIDATION_FAILED", detail);
  const extra = Object.keys(q).filter((k) => !KEYS.has(k));
  if (extra.length > 0)
    throw bad(`unknown parameter(s) ${extra.join(", ")}; allowed: since, prefix, settleS`);
  const { since, prefix, settleS } = q;
  if (typeof since !== "string" || !ISO.test(since) || Number.isNaN(Date.parse(since)))
    throw bad("since must be an ISO 8601 time, e.g. 2026-01-31T12:00:00Z");
  if (prefix !== undefined && (typeof prefix !== "string" || !PREFIX.test(prefix)))
    throw bad("prefix must be 1-64 characters of A-Z a-z 0-9 . : _ -");
  let settle = 0;
  if (settleS !== undefined) {
    settle = typeof settleS === "string" && /^\d{1,3}$/.test(settleS) ? Number(settleS) : Number.NaN;
    if (!(settle >= 0 && settle <= MAX_SETTLE_S)) throw bad(`settleS must be an integer 0-${MAX_SETTLE_S}`);
  }
  return { since: new Date(since), settleS: settle, ...(prefix === undefined ? {} : { prefix }) };
}

export function registerAuditRoutes(
  app: FastifyInstance,
  audit: (q: AuditQuery) => Promise<AuditSinceResult>,
): void {
  app.get("/audit", async (req) => {
    const q = parseQuery(req.query);
    try {
      return await audit(q);
    } catch (e) {
      if (e instanceof AuditTooLargeError) throw new HttpProblem("VALIDATION_FAILED", e.message);
      // The databases or the broker did not answer (a fault in progress): try again once it heals.
      req.log.warn({ err: e }, "audit.failed");
      throw new HttpProblem("NOT_READY", `the audit could not read the stack: ${(e as Error).message}`);
    }
  });
}
