// The saga's load generator: POST /orders over node:http with a keep-alive Agent. Node's fetch costs
// several ms of CPU per request on a 2-core host, which the system under test would lose at
// 150-600 orders/s; a bounded pool of kept-alive sockets and bodies built before the step cost a fraction.
import http from "node:http";
import { SKUS } from "./tx-shapes.ts";

/** Sockets to the order service: enough for ~200 ms answers at 600/s to queue briefly, not unbounded. */
export const MAX_SOCKETS = 64;
const REQUEST_TIMEOUT_MS = 15_000;

export interface OrderClient {
  /** Resolves with the new order's id; rejects on a non-2xx answer, a timeout or a socket error. */
  post(idempotencyKey: string, body: Buffer): Promise<string>;
  close(): void;
}

/**
 * Order bodies for one run: `count` distinct bodies (two random SKUs, customers `bench-<run>-<k>`), reused
 * round-robin. Each request has its own idempotency key, so a repeated body is still a new order.
 */
export function orderBodies(run: string, count = 256): Buffer[] {
  const pick = () => SKUS[Math.floor(Math.random() * SKUS.length)] as string;
  return Array.from({ length: count }, (_, k) =>
    Buffer.from(
      JSON.stringify({
        customerId: `bench-${run}-${k % 100}`,
        lines: [
          { sku: pick(), quantity: 1, unitPrice: 1_999 },
          { sku: pick(), quantity: 2, unitPrice: 4_999 },
        ],
      }),
    ),
  );
}

/**
 * A client of the order service at `orderUrl`, or of each of its instances in turn (a list: the replicas
 * of `pnpm stack up --replicas N`), with the socket cap shared among them.
 */
export function createOrderClient(
  orderUrl: string | readonly string[],
  maxSockets = MAX_SOCKETS,
): OrderClient {
  const urls = typeof orderUrl === "string" ? [orderUrl] : orderUrl;
  const clients = urls.map((u) => instanceClient(u, Math.max(1, Math.ceil(maxSockets / urls.length))));
  let next = 0;
  return {
    post: (key, body) => (clients[next++ % clients.length] as OrderClient).post(key, body),
    close: () => {
      for (const c of clients) c.close();
    },
  };
}

function instanceClient(orderUrl: string, maxSockets: number): OrderClient {
  const { hostname, port } = new URL(orderUrl);
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    scheduling: "fifo",
  });
  const once = (key: string, body: Buffer): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          hostname,
          port,
          method: "POST",
          path: "/orders",
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            "content-type": "application/json",
            "content-length": body.length,
            "idempotency-key": key,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) return reject(new Error(`POST /orders ${status}`));
            try {
              const id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: unknown }).id;
              if (typeof id === "string") resolve(id);
              else reject(new Error("POST /orders answered without an id"));
            } catch (e) {
              reject(e as Error);
            }
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`POST /orders: no answer in ${REQUEST_TIMEOUT_MS} ms`)));
      req.on("error", (e) => reject(Object.assign(e, { reusedSocket: req.reusedSocket })));
      req.end(body);
    });
  return {
    // A kept-alive socket the server closed while idle fails the next request on it at once; the
    // idempotency key makes sending it again safe (Node's documented pattern for keep-alive races).
    post: (key, body) =>
      once(key, body).catch((e: Error & { reusedSocket?: boolean; code?: string }) => {
        if (e.reusedSocket && (e.code === "ECONNRESET" || e.code === "EPIPE")) return once(key, body);
        throw e;
      }),
    close: () => agent.destroy(),
  };
}
