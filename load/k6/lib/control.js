// @ts-check
// The control service's API (control/): faults through POST /faults, the audit through
// GET /audit. Every POST carries the Bearer token; GETs need none.
import http from "k6/http";

/**
 * @typedef {import("./timeline.js").Firing} Firing
 * @typedef {{ status: number, body: any }} Answer
 */

/** @param {import("k6/http").RefinedResponse<any>} res @returns {Answer} */
function answer(res) {
  let body = null;
  try {
    body = typeof res.body === "string" && res.body !== "" ? JSON.parse(res.body) : null;
  } catch {}
  return { status: res.status, body };
}

/**
 * @param {string} controlUrl
 * @param {string} token
 * @param {Firing} f
 * @returns {Answer}
 */
export function postFault(controlUrl, token, f) {
  const payload = {
    action: f.action,
    ...(f.target ? { target: f.target } : {}),
    ...(f.durationS ? { durationS: f.durationS } : {}),
  };
  const res = http.post(`${controlUrl}/faults`, JSON.stringify(payload), {
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    // A fault answers when it is done: start-broker waits for the queues, restart-postgres for the server.
    timeout: "120s",
    tags: { name: "POST /faults" },
    // A 409 of a loop (its target still restarting) is an expected answer, not a failed request.
    responseCallback: http.expectedStatuses(200, 409),
  });
  return answer(res);
}

/** @param {string} controlUrl @returns {Answer} */
export function getFaults(controlUrl) {
  return answer(http.get(`${controlUrl}/faults`, { tags: { name: "GET /faults" }, timeout: "10s" }));
}

/**
 * The audit of every order of `prefix` created since `since`, after waiting up to settleS for the system
 * to settle.
 * @param {string} controlUrl @param {string} since @param {string} prefix @param {number} settleS
 * @returns {Answer}
 */
export function getAudit(controlUrl, since, prefix, settleS) {
  const q = `since=${encodeURIComponent(since)}&prefix=${encodeURIComponent(prefix)}&settleS=${Math.round(settleS)}`;
  return answer(
    http.get(`${controlUrl}/audit?${q}`, {
      tags: { name: "GET /audit" },
      timeout: `${Math.round(settleS) + 90}s`,
    }),
  );
}
