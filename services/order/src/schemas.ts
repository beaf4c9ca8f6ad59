// JSON schemas of the order API: they validate requests (unknown fields rejected) and feed /openapi.json.
import { keyString, uuidString } from "@orderflow/http";

export const newOrderBody = {
  type: "object",
  additionalProperties: false,
  required: ["customerId", "lines"],
  properties: {
    customerId: keyString,
    lines: {
      type: "array",
      minItems: 1,
      maxItems: 100,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["sku", "quantity", "unitPrice"],
        properties: {
          sku: keyString,
          quantity: { type: "integer", minimum: 1, maximum: 10_000 },
          unitPrice: { type: "integer", minimum: 0, maximum: 100_000_000, description: "cents" },
        },
      },
    },
  },
} as const;

export const orderView = {
  type: "object",
  required: ["id", "customerId", "status", "lines", "total", "pointsGranted", "history"],
  properties: {
    id: { type: "string", format: "uuid" },
    customerId: { type: "string" },
    status: { type: "string", enum: ["PENDING", "CONFIRMED", "CANCELLED"] },
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: {
          sku: { type: "string" },
          quantity: { type: "integer" },
          unitPrice: { type: "integer" },
        },
      },
    },
    total: { type: "integer", description: "cents" },
    pointsGranted: { type: ["integer", "null"] },
    cancelReason: { type: ["string", "null"] },
    createdAt: { type: "string", format: "date-time" },
    updatedAt: { type: "string", format: "date-time" },
    history: {
      type: "array",
      items: {
        type: "object",
        properties: {
          at: { type: "string", format: "date-time" },
          event: { type: "string" },
          detail: { type: "object", additionalProperties: true },
        },
      },
    },
  },
} as const;

export const orderIdParams = {
  type: "object",
  required: ["id"],
  properties: { id: uuidString },
} as const;

export const listQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    status: { type: "string", enum: ["PENDING", "CONFIRMED", "CANCELLED"] },
    limit: { type: "string", pattern: "^[0-9]{1,3}$", description: "1-200, default 50" },
    cursor: {
      type: "string",
      pattern: "^[A-Za-z0-9_-]{1,200}$",
      description: "nextCursor of the previous page",
    },
  },
} as const;
