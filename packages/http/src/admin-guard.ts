// /admin routes act on the whole system (a reconciliation pass, an invariant check across three
// services): they need the bearer token from the stack's secrets, and each instance serves a bounded
// number of them (in flight and per minute), so a burst cannot starve the saga of database time.
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { HttpProblem } from "./problems.ts";

export interface AdminGuardOptions {
  /** Unset: every /admin request is refused (the routes exist, nobody may use them). */
  token: string | undefined;
  /** Default 2. */
  maxInFlight?: number;
  /** Default 60. */
  perMinute?: number;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

export function guardAdminRoutes(app: FastifyInstance, opts: AdminGuardOptions): void {
  const expected = opts.token ? digest(`Bearer ${opts.token}`) : undefined;
  const maxInFlight = opts.maxInFlight ?? 2;
  const perMinute = opts.perMinute ?? 60;
  let inFlight = 0;
  let window = { startedAt: 0, count: 0 };

  app.addHook("onRequest", async (req, reply) => {
    // The route it matched, not the raw URL: the router decodes "/%61dmin/..." to an admin route.
    if (!req.routeOptions.url?.startsWith("/admin/")) return;
    const given = req.headers.authorization;
    if (!expected || typeof given !== "string" || !timingSafeEqual(digest(given), expected))
      throw new HttpProblem(
        "UNAUTHORIZED",
        expected ? "Authorization: Bearer <admin token>" : "ADMIN_TOKEN is not set",
      );
    const now = Date.now();
    if (now - window.startedAt >= 60_000) window = { startedAt: now, count: 0 };
    if (inFlight >= maxInFlight || window.count >= perMinute) {
      // Busy: a second will do; over the minute's budget: until the window turns.
      const wait = window.count >= perMinute ? Math.ceil((window.startedAt + 60_000 - now) / 1000) : 1;
      reply.header("retry-after", String(Math.max(1, wait)));
      throw new HttpProblem(
        "RATE_LIMITED",
        `at most ${maxInFlight} admin requests at once, ${perMinute} a minute`,
      );
    }
    window.count += 1;
    inFlight += 1;
    // "close" comes for every request, also one whose client hung up before the answer.
    reply.raw.once("close", () => {
      inFlight -= 1;
    });
  });
}
