// Shim of "k6/http" (test code only): real HTTP, synchronous as in k6, through fetch-worker.mjs.
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { parseDurationMs } from "./duration.mjs";
import { addSample, state } from "./state.mjs";

const flag = new Int32Array(new SharedArrayBuffer(4));
const { port1, port2 } = new MessageChannel();
const worker = new Worker(new URL("./fetch-worker.mjs", import.meta.url), {
  workerData: { port: port2, flag },
  transferList: [port2],
});
worker.unref();
port1.unref();

/** @param {number[]} statuses */
const expectedStatuses = (...statuses) => ({ statuses });

/**
 * @param {string} method @param {string} url @param {string | null} body
 * @param {{ headers?: Record<string, string>, timeout?: string, tags?: Record<string, string>, responseCallback?: { statuses: number[] } }} [params]
 */
function request(method, url, body = null, params = {}) {
  const timeoutMs = parseDurationMs(params.timeout ?? "60s");
  Atomics.store(flag, 0, 0);
  port1.postMessage({ method, url, body, headers: params.headers ?? {}, timeoutMs });
  Atomics.wait(flag, 0, 0, timeoutMs + 10_000);
  const answer = receiveMessageOnPort(port1)?.message;
  if (!answer) throw new Error(`shim: no answer from the fetch worker for ${method} ${url}`);
  const ok = params.responseCallback
    ? params.responseCallback.statuses.includes(answer.status)
    : answer.status >= 200 && answer.status < 400;
  state.requests.push({
    method,
    url,
    status: answer.status,
    scenario: state.scenario,
    headers: params.headers ?? {},
    body,
    responseBody: answer.body,
    durationMs: answer.durationMs,
    failed: !ok,
  });
  addSample("http_reqs", "counter", 1, params.tags);
  addSample("http_req_failed", "rate", ok ? 0 : 1, params.tags);
  addSample("http_req_duration", "trend", answer.durationMs, params.tags);
  return {
    status: answer.status,
    body: answer.body,
    headers: answer.headers,
    error: answer.error ?? "",
    timings: { duration: answer.durationMs },
    json() {
      return JSON.parse(answer.body);
    },
  };
}

const http = {
  request,
  get: (url, params) => request("GET", url, null, params),
  del: (url, body, params) => request("DELETE", url, body ?? null, params),
  post: (url, body, params) => request("POST", url, body ?? null, params),
  put: (url, body, params) => request("PUT", url, body ?? null, params),
  patch: (url, body, params) => request("PATCH", url, body ?? null, params),
  expectedStatuses,
};

export default http;
export { expectedStatuses };
