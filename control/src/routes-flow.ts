// GET /flow: a snapshot of the flow; GET /flow/stream: the same as server-sent events, one `flow` event
// a second, a comment heartbeat between, for at most MAX_STREAMS clients at once (each keeps the
// sampler ticking; a forgotten browser tab must not be able to pile them up).
import { HttpProblem } from "@orderflow/http";
import type { FastifyInstance } from "fastify";
import type { Flow, FlowSampler } from "./flow-sampler.ts";

export const MAX_STREAMS = 20;
/** Proxies and browsers drop a stream that is silent too long; a comment line keeps it open. */
const HEARTBEAT_MS = 15_000;

export function registerFlowRoutes(app: FastifyInstance, flow: FlowSampler): void {
  const streams = new Set<() => void>();

  app.get("/flow", async () => flow.snapshot());

  app.get("/flow/stream", (req, reply) => {
    if (streams.size >= MAX_STREAMS)
      throw new HttpProblem("RATE_LIMITED", `at most ${MAX_STREAMS} flow streams at once`);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-correlation-id": req.id,
    });
    // The browser's EventSource reconnects after this long when the service restarts.
    res.write("retry: 3000\n\n");
    const send = (f: Flow) => {
      if (!res.writableEnded) res.write(`event: flow\ndata: ${JSON.stringify(f)}\n\n`);
    };
    const unsubscribe = flow.subscribe(send);
    const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), HEARTBEAT_MS);
    const end = () => {
      if (!streams.delete(end)) return;
      clearInterval(heartbeat);
      unsubscribe();
      if (!res.writableEnded) res.end();
    };
    streams.add(end);
    res.on("close", end);
    res.on("error", end);
  });

  // Open streams never end by themselves: close() would wait for them forever.
  app.addHook("preClose", async () => {
    for (const end of [...streams]) end();
  });
}
