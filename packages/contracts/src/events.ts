// The payload of every event in the order saga, one strict schema per event type and version.
// Strict objects: a field a consumer does not know is a contract change, not something to ignore silently.
import { z } from "zod";

// Every string travels into PostgreSQL text and jsonb columns and into log lines: no control character
// (NUL above all), no lone surrogate, and a bound on every free-text field.
// Lengths count characters (code points), as the HTTP schemas do: an emoji is one, not two UTF-16 units,
// so whatever the API accepted fits its event. "." and ".." are refused as ids: as a URL path segment
// they mean something else, and ids travel in URLs (reconciliation looks effects up by order id).
const storable = /^[^\p{Cc}\p{Cs}]*$/u;
const text = (max: number) =>
  z
    .string()
    .regex(storable, "control characters or lone surrogates")
    .refine((s) => {
      const n = [...s].length;
      return n >= 1 && n <= max;
    }, `1-${max} characters`);
const id = text(200).refine((s) => s !== "." && s !== "..", "not a path segment");
const reason = text(500);
// Bounds the order API enforces as well: a total fits PostgreSQL's integer, so its points always do.
const cents = z.number().int().min(0).max(2_147_483_647);
const timestamp = z.iso.datetime({ offset: true });

export const orderLine = z.strictObject({
  sku: id,
  quantity: z.number().int().min(1).max(10_000),
  unitPrice: cents,
});

/** Full snapshot of the order, so inventory and points never call back into the order service. */
export const orderCreatedV1 = z.strictObject({
  orderId: id,
  customerId: id,
  lines: z.array(orderLine).min(1).max(100),
  total: cents,
  createdAt: timestamp,
});

export const orderConfirmedV1 = z.strictObject({ orderId: id, customerId: id, total: cents });

export const orderCancelledV1 = z.strictObject({
  orderId: id,
  customerId: id,
  reason,
  /** Points were granted only for confirmed orders: tells the points service whether to reverse. */
  wasConfirmed: z.boolean(),
});

const reservedLines = z.array(z.strictObject({ sku: id, quantity: z.number().int().min(1) })).min(1);

export const inventoryReservedV1 = z.strictObject({ orderId: id, lines: reservedLines });

/**
 * v2 carries the customer and the total from order.created: points grants on it, beside the order's
 * confirmation, instead of waiting for an order.confirmed (one hop fewer before an order is final).
 */
export const inventoryReservedV2 = z.strictObject({
  orderId: id,
  lines: reservedLines,
  customerId: id,
  total: cents,
});

export const inventoryRejectedV1 = z.strictObject({
  orderId: id,
  reason,
  sku: id.optional(),
});

export const inventoryReleasedV1 = z.strictObject({ orderId: id });

/**
 * A SKU's level after a change (a reservation batch, a release, a restock): the whole level, not the
 * difference, so a reader keeps it by overwriting. An ordered stream per SKU: applied out of order, an
 * older level would overwrite a newer one.
 */
export const inventoryStockChangedV1 = z.strictObject({
  sku: id,
  available: z.number().int().min(0),
  reserved: z.number().int().min(0),
});

export const pointsGrantedV1 = z.strictObject({
  orderId: id,
  customerId: id,
  points: z.number().int().min(0),
});

export const pointsReversedV1 = z.strictObject({
  orderId: id,
  customerId: id,
  points: z.number().int().min(0),
});
