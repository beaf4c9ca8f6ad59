import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  bool,
  ConfigError,
  envVar,
  int,
  list,
  logLevel,
  num,
  oneOf,
  port,
  readEnv,
  required,
  str,
  url,
} from "../src/index.ts";

describe("readEnv", () => {
  it("returns typed values, defaults and undefined for unset optional variables", () => {
    const v = readEnv(
      {
        port: port("ORDER_PORT").default(3001),
        host: str("ORDER_HOST").default("127.0.0.1"),
        db: required("ORDER_DATABASE_URL"),
        redis: url("REDIS_URL", ["redis:"]),
        level: logLevel(),
        urls: list("ORDER_AMQP_URLS").required(),
        backoff: list("BACKOFF_MS", num("", { min: 0 })),
        debug: bool("DEBUG").default(false),
        mode: oneOf("MODE", ["on", "off"] as const),
      },
      {
        ORDER_PORT: "4001",
        ORDER_HOST: "",
        ORDER_DATABASE_URL: "postgres://x",
        ORDER_AMQP_URLS: "amqp://a, amqp://b,,",
        BACKOFF_MS: "1000,2.5",
        DEBUG: "true",
      },
    );
    expect(v).toEqual({
      port: 4001,
      host: "127.0.0.1",
      db: "postgres://x",
      redis: undefined,
      level: "info",
      urls: ["amqp://a", "amqp://b"],
      backoff: [1000, 2.5],
      debug: true,
      mode: undefined,
    });
  });

  it("throws one error naming every bad variable and why", () => {
    const read = () =>
      readEnv(
        {
          port: port("ORDER_PORT").default(3001),
          db: required("ORDER_DATABASE_URL"),
          level: logLevel(),
          size: int("BATCH", { min: 1 }),
          flag: bool("FLAG"),
          backoff: list("BACKOFF_MS", num("", { min: 0 })),
          broker: url("AMQP", ["amqp:"]),
        },
        {
          ORDER_PORT: "abc",
          LOG_LEVEL: "verbose",
          BATCH: "0",
          FLAG: "yes",
          BACKOFF_MS: "1,-2",
          AMQP: "http://user:secret@host",
        },
      );
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(
      'ORDER_PORT must be an integer 0-65535, got "abc"; ORDER_DATABASE_URL is required (see .env.example); ' +
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"; ' +
        'BATCH must be an integer >= 1, got "0"; FLAG must be true or false (or 1 or 0), got "yes"; ' +
        'BACKOFF_MS must be a comma-separated list; entry "-2" must be a number >= 0, got "1,-2"; ' +
        'AMQP must be a URL (amqp:), got "http://user:***@host"',
    );
  });

  it("reads the first of several names that is set, and names them all when none is", () => {
    const schema = { db: required(["OUTBOX_DATABASE_URL", "DATABASE_URL"]) };
    expect(readEnv(schema, { DATABASE_URL: "postgres://b" }).db).toBe("postgres://b");
    expect(readEnv(schema, { OUTBOX_DATABASE_URL: "postgres://a", DATABASE_URL: "postgres://b" }).db).toBe(
      "postgres://a",
    );
    expect(() => readEnv(schema, {})).toThrow(
      "OUTBOX_DATABASE_URL (or DATABASE_URL) is required (see .env.example)",
    );
  });

  it("takes any zod schema over the text", () => {
    const schema = { n: envVar("N", z.string().regex(/^[a-z]+$/, "must be lower-case letters")) };
    expect(readEnv(schema, { N: "abc" }).n).toBe("abc");
    expect(() => readEnv(schema, { N: "ABC" })).toThrow('N must be lower-case letters, got "ABC"');
  });

  it("lists every problem in ConfigError.problems", () => {
    try {
      readEnv({ a: required("A"), b: int("B") }, { B: "1.5" });
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).problems).toEqual([
        "A is required (see .env.example)",
        'B must be an integer, got "1.5"',
      ]);
    }
  });
});
