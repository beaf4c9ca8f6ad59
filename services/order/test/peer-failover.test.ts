// Reconciliation asks the other services through httpPeers: with several instances of a peer, a call goes
// on to the next instance when one cannot be reached or fails, and stops at an answer.
import { startTestServer, type TestServer } from "@orderflow/testkit/test-server.ts";
import { afterEach, expect, test } from "vitest";
import { httpPeers } from "../src/reconcile/peers.ts";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const stock = { items: [{ sku: "A", available: 3, reserved: 1 }] };

test("a peer instance that is down or failing is passed over for the next one", async () => {
  const gone = await startTestServer();
  const goneUrl = gone.url;
  await gone.close();
  const failing = await startTestServer(() => ({ status: 503, body: {} }));
  const answering = await startTestServer(() => ({ status: 200, body: stock }));
  servers.push(failing, answering);
  const peers = httpPeers([goneUrl, failing.url, answering.url], []);
  expect(await peers.stock()).toEqual(stock.items);
  // The next call starts with the instance that answered.
  const failedBefore = failing.received;
  expect(await peers.stock()).toEqual(stock.items);
  expect(failing.received).toBe(failedBefore);
});

test("a 404 is an answer and a 400 an error of the request: neither is asked of another instance", async () => {
  const missing = await startTestServer(() => ({ status: 404, body: {} }));
  const refusing = await startTestServer(() => ({ status: 400, body: {} }));
  const other = await startTestServer(() => ({ status: 200, body: { status: "RESERVED" } }));
  servers.push(missing, refusing, other);
  expect(await httpPeers([missing.url, other.url], []).reservation("o-1")).toBeUndefined();
  await expect(httpPeers([refusing.url, other.url], []).reservation("o-1")).rejects.toThrow(/HTTP 400/);
  expect(other.received).toBe(0);
});

test("every instance down: the last error is thrown", async () => {
  const a = await startTestServer(() => ({ status: 502, body: {} }));
  const b = await startTestServer(() => ({ status: 503, body: {} }));
  servers.push(a, b);
  await expect(httpPeers([a.url, b.url], []).stock()).rejects.toThrow(/HTTP 503/);
});
