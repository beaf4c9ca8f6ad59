// A tiny HTTP server on 127.0.0.1 for the generator's tests: answers JSON, can stall, can fail.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TestServer {
  url: string;
  /** Requests received so far. */
  readonly received: number;
  /** TCP connections accepted so far, and the most requests ever waiting for an answer at once. */
  readonly connections: number;
  readonly maxConcurrent: number;
  /** Holds every request that arrives (and those already waiting) until `ms` from now. */
  stallFor(ms: number): void;
  close(): Promise<void>;
}

export type Answer = { status: number; body: unknown };

export async function startTestServer(
  answer: (req: http.IncomingMessage, n: number) => Answer = () => ({ status: 200, body: { ok: true } }),
): Promise<TestServer> {
  let received = 0;
  let stallUntil = 0;
  let connections = 0;
  let concurrent = 0;
  let maxConcurrent = 0;
  const server = http.createServer((req, res) => {
    const n = received++;
    concurrent++;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    req.resume();
    req.on("end", () => {
      const respond = () => {
        const a = answer(req, n);
        concurrent--;
        res.writeHead(a.status, { "content-type": "application/json" });
        res.end(JSON.stringify(a.body));
      };
      const wait = stallUntil - Date.now();
      if (wait > 0) setTimeout(respond, wait);
      else respond();
    });
  });
  server.on("connection", () => connections++);
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    get connections() {
      return connections;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    stallFor(ms) {
      stallUntil = Date.now() + ms;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
