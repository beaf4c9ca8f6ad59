// The schema pieces every route builds its strings from, so one limit holds everywhere: in the body, in
// the path (the router accepts any parameter these schemas could accept) and in the event contracts.

/** The longest key (a SKU, a customer id, an Idempotency-Key) any route accepts. */
export const MAX_KEY_LENGTH = 200;

// What PostgreSQL text can hold and a log line can show: no control character (NUL above all) and no
// lone surrogate; and not "." or "..", which as a URL path segment mean something else. The schemas
// compile with the `u` flag, so \p{...} classes and surrogates work. The event contracts say the same.
const STORABLE = "^(?!\\.{1,2}$)[^\\p{Cc}\\p{Cs}]+$";

/** A key chosen by the client: 1-200 characters PostgreSQL can store. */
export const keyString = {
  type: "string",
  minLength: 1,
  maxLength: MAX_KEY_LENGTH,
  pattern: STORABLE,
} as const;

/** A UUID as the services store it: 36 characters, no `urn:uuid:` or braces (JSON schema's format allows them). */
export const uuidString = {
  type: "string",
  pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
} as const;

/**
 * The router's limit on one path parameter, counted in raw URL characters: a key of MAX_KEY_LENGTH
 * characters of 4 UTF-8 bytes each is 12 raw characters per character once percent-encoded. The schema,
 * not the router, then says what is too long.
 */
export const MAX_PARAM_LENGTH = MAX_KEY_LENGTH * 12;
