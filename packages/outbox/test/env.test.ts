// The relay process's settings as its env.ts reads them: no stack needed.
import { describe, expect, it } from "vitest";
import { readOutboxEnv } from "../src/env.ts";

const base = {
  OUTBOX_DATABASE_URL: "postgres://relay@127.0.0.1:5432/orders",
  OUTBOX_AMQP_URLS: "amqp://relay@127.0.0.1:5672",
};

describe("relay process settings", () => {
  it("publishes on two confirm channels unless OUTBOX_PUBLISH_CHANNELS says otherwise", () => {
    expect(readOutboxEnv(base).publisher.channels).toBe(2);
    expect(readOutboxEnv({ ...base, OUTBOX_PUBLISH_CHANNELS: "1" }).publisher.channels).toBe(1);
  });

  it("refuses a channel count outside 1-8, naming the variable", () => {
    for (const bad of ["0", "9", "two"])
      expect(() => readOutboxEnv({ ...base, OUTBOX_PUBLISH_CHANNELS: bad })).toThrow(
        /OUTBOX_PUBLISH_CHANNELS/,
      );
  });
});
