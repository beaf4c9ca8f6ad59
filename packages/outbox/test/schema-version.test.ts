// Which schema version an outbox row carries (its x-schema-version header on the wire): the version the
// contracts call current for its type, unless the writer names one. Consumers validate each message
// against the version it carries, so a row stamped with the wrong one is parked everywhere.
import { currentVersion } from "@orderflow/contracts";
import { describe, expect, it } from "vitest";
import { outboxRow } from "../src/index.ts";

const event = (eventType: string, schemaVersion?: number) => ({
  eventType,
  aggregateType: "test",
  aggregateId: "a-1",
  payload: {},
  ...(schemaVersion === undefined ? {} : { schemaVersion }),
});

describe("an outbox row's schema version", () => {
  it("is the contract's current version of its type when the writer names none", () => {
    expect(outboxRow(event("inventory.reserved")).schemaVersion).toBe(currentVersion("inventory.reserved"));
    expect(outboxRow(event("inventory.reserved")).schemaVersion).toBe(2);
    expect(outboxRow(event("order.created")).schemaVersion).toBe(1);
  });

  it("is the writer's when it names one, and 1 for a type outside the contracts", () => {
    expect(outboxRow(event("inventory.reserved", 1)).schemaVersion).toBe(1);
    expect(outboxRow(event("test.thing")).schemaVersion).toBe(1);
  });
});
