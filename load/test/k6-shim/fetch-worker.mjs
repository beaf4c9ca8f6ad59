// The shim's http is synchronous like k6's: the main thread posts a request here and waits on a shared
// flag (Atomics.wait) while this worker does the real fetch and posts the answer back.
import { workerData } from "node:worker_threads";

const { port, flag } = workerData;

port.on("message", async (req) => {
  const started = performance.now();
  let answer;
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body ?? undefined,
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    const body = await res.text();
    answer = { status: res.status, headers: Object.fromEntries(res.headers), body };
  } catch (e) {
    answer = { status: 0, headers: {}, body: "", error: String(e?.cause ?? e) };
  }
  port.postMessage({ ...answer, durationMs: performance.now() - started });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
