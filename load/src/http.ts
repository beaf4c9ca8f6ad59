// HTTP through one undici Pool whose connection count is the in-flight cap: when the server stalls,
// new iterations are dropped and counted instead of opening ever more sockets (the storm that kept
// p99 high for 10 s after a 2 s stall in the measurements in shared/notes/load-testing.md). With several
// instances, one Pool each behind undici's BalancedPool, which spreads requests over them and sends fewer
// to an instance whose requests fail (one killed or restarting), with the cap shared among them.
import { BalancedPool, Pool } from "undici";

export interface RequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | null;
}

export interface HttpAnswer {
  status: number | null;
  /** The body text, read only when asked for (the ledger needs it; the load alone does not). */
  body: string | null;
  error: string | null;
}

export interface HttpSender {
  send(spec: RequestSpec, opts: { readBody: (status: number) => boolean }): Promise<HttpAnswer>;
  /** Fails every request still in flight (past gracefulStop) and closes the connections. */
  close(): Promise<void>;
}

export function createHttpSender(
  origins: readonly string[],
  o: { connections: number; timeoutMs: number },
): HttpSender {
  const options = {
    connections: Math.max(1, Math.ceil(o.connections / origins.length)),
    pipelining: 1,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
    connectTimeout: Math.min(o.timeoutMs, 10_000),
  };
  const pool =
    origins.length === 1 ? new Pool(origins[0] as string, options) : new BalancedPool([...origins], options);
  return {
    async send(spec, { readBody }) {
      try {
        const res = await pool.request({
          method: spec.method as "GET",
          path: spec.path,
          headers: spec.headers ?? {},
          body: spec.body ?? null,
        });
        if (readBody(res.statusCode)) {
          return { status: res.statusCode, body: await res.body.text(), error: null };
        }
        await res.body.dump();
        return { status: res.statusCode, body: null, error: null };
      } catch (err) {
        return { status: null, body: null, error: (err as Error).message ?? String(err) };
      }
    },
    async close() {
      // destroy, not close: close() would wait for the requests that gracefulStop gave up on.
      // No per-request AbortSignal: adding and removing a listener per request costs at 10k/s.
      if (!pool.destroyed) await pool.destroy();
    },
  };
}
