// /admin routes act on the whole system: only with the stack's admin token, and a bounded number at once.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { adminHeaders, api, openSaga, type Saga } from "./helpers.ts";

let saga: Saga;
beforeAll(async () => {
  saga = await openSaga();
});
afterAll(async () => {
  await saga.close();
});

const expectProblem = (
  r: { status: number; headers: Headers; body: { code?: string } },
  status: number,
  code: string,
) => {
  expect(r.status).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(r.body.code).toBe(code);
};

describe("admin routes", () => {
  test("without a token, with a wrong one, or with the token in another scheme: 401 problem", async () => {
    const path = "/admin/invariants";
    expectProblem(await api(saga.url.order, "GET", path), 401, "UNAUTHORIZED");
    expectProblem(
      await api(saga.url.order, "GET", path, undefined, { authorization: "Bearer wrong" }),
      401,
      "UNAUTHORIZED",
    );
    const basic = { authorization: `Basic ${saga.stack.secrets.adminToken}` };
    expectProblem(await api(saga.url.order, "GET", path, undefined, basic), 401, "UNAUTHORIZED");
    expectProblem(
      await api(saga.url.order, "POST", `/admin/reconcile?orderId=${randomUUID()}`),
      401,
      "UNAUTHORIZED",
    );
    // The router decodes the path before it matches: an encoded "/admin" is still an admin route.
    expectProblem(await api(saga.url.order, "GET", "/%61dmin/invariants"), 401, "UNAUTHORIZED");
  });

  test("with the token they answer; a burst of 30 reconciliations is answered at most two at a time, the rest 429 with Retry-After", async () => {
    const ok = await api(saga.url.order, "GET", "/admin/invariants", undefined, adminHeaders(saga.stack));
    expect(ok.status).toBe(200);
    const burst = await Promise.all(
      Array.from({ length: 30 }, () =>
        api(
          saga.url.order,
          "POST",
          `/admin/reconcile?orderId=${randomUUID()}`,
          undefined,
          adminHeaders(saga.stack),
        ),
      ),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const limited = burst.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) {
      expectProblem(r, 429, "RATE_LIMITED");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});
