import { describe, expect, it } from "vitest";
import { amqpProperties, assertPayload, currentVersion, EVENT_TYPES, validateEvent } from "../src/index.ts";

const buildOrderCreated = (overrides: Record<string, unknown> = {}) => ({
  orderId: "o-1",
  customerId: "c-1",
  lines: [{ sku: "sku-1", quantity: 2, unitPrice: 1250 }],
  total: 2500,
  createdAt: "2026-11-30T07:00:00.000Z",
  ...overrides,
});

describe("event contracts", () => {
  it("lists the eight saga events and the stock stream", () => {
    expect(EVENT_TYPES.sort()).toEqual(
      [
        "inventory.rejected",
        "inventory.released",
        "inventory.reserved",
        "inventory.stock-changed",
        "order.cancelled",
        "order.confirmed",
        "order.created",
        "points.granted",
        "points.reversed",
      ].sort(),
    );
  });

  it("accepts a full order.created snapshot (version given as header string or number)", () => {
    expect(validateEvent("order.created", 1, buildOrderCreated()).ok).toBe(true);
    expect(validateEvent("order.created", "1", buildOrderCreated()).ok).toBe(true);
  });

  it("rejects unknown fields, fractional cents and zero quantities", () => {
    expect(validateEvent("order.created", 1, buildOrderCreated({ extra: 1 }))).toMatchObject({
      ok: false,
      reason: "invalid-payload",
    });
    expect(validateEvent("order.created", 1, buildOrderCreated({ total: 12.5 })).ok).toBe(false);
    const zeroQty = buildOrderCreated({ lines: [{ sku: "s", quantity: 0, unitPrice: 1 }] });
    expect(validateEvent("order.created", 1, zeroQty).ok).toBe(false);
  });

  it("names unknown types and unsupported versions", () => {
    expect(validateEvent("order.teleported", 1, {})).toMatchObject({ ok: false, reason: "unknown-type" });
    expect(validateEvent("order.created", 2, buildOrderCreated())).toMatchObject({
      ok: false,
      reason: "unsupported-version",
    });
    expect(validateEvent("order.created", undefined, buildOrderCreated())).toMatchObject({
      ok: false,
      reason: "unsupported-version",
    });
  });

  it("inventory.reserved: v2 (current) carries the customer and total points grants on; v1 stays accepted as it was", () => {
    const lines = [{ sku: "s", quantity: 1 }];
    const v2 = { orderId: "o", lines, customerId: "c", total: 2500 };
    expect(currentVersion("inventory.reserved")).toBe(2);
    expect(validateEvent("inventory.reserved", 2, v2).ok).toBe(true);
    expect(validateEvent("inventory.reserved", 1, { orderId: "o", lines }).ok).toBe(true);
    // Each version is strict: a v2 body under v1, or a v2 without its total, is a broken contract.
    expect(validateEvent("inventory.reserved", 1, v2)).toMatchObject({
      ok: false,
      reason: "invalid-payload",
    });
    expect(validateEvent("inventory.reserved", 2, { orderId: "o", lines, customerId: "c" }).ok).toBe(false);
    expect(validateEvent("inventory.reserved", 3, v2)).toMatchObject({
      ok: false,
      reason: "unsupported-version",
    });
  });

  it("accepts inventory.rejected with or without a sku", () => {
    expect(validateEvent("inventory.rejected", 1, { orderId: "o", reason: "insufficient-stock" }).ok).toBe(
      true,
    );
    expect(validateEvent("inventory.rejected", 1, { orderId: "o", reason: "x", sku: "s" }).ok).toBe(true);
  });

  it("assertPayload throws for producers writing a wrong payload", () => {
    expect(() => assertPayload("points.granted", { orderId: "o", customerId: "c", points: -1 })).toThrow(
      /points/,
    );
  });

  it("maps an envelope to AMQP properties with the agreed headers", () => {
    const p = amqpProperties({
      messageId: "m-1",
      type: "order.created",
      schemaVersion: 1,
      correlationId: "m-0",
      causationId: "m-0",
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(p).toMatchObject({
      messageId: "m-1",
      type: "order.created",
      contentType: "application/json",
      headers: { "x-schema-version": 1, "x-correlation-id": "m-0", "x-causation-id": "m-0" },
    });
    expect(p.headers.traceparent).toMatch(/^00-/);
  });

  it("counts ids in characters as the HTTP schemas do, and refuses what cannot travel in a URL path", () => {
    const created = (customerId: string) =>
      validateEvent("order.created", 1, {
        orderId: "o-1",
        customerId,
        lines: [{ sku: "s", quantity: 1, unitPrice: 1 }],
        total: 1,
        createdAt: new Date().toISOString(),
      }).ok;
    expect(created("😀".repeat(200))).toBe(true); // 400 UTF-16 units, 200 characters
    expect(created("😀".repeat(201))).toBe(false);
    for (const bad of [".", "..", "a\u0000b", "a\ud800b", ""])
      expect(created(bad), JSON.stringify(bad)).toBe(false);
  });
});
