// A service that cannot reach a dependency at start-up says which one, where, and through which variable.
import net from "node:net";
import { beforeAll, expect, test } from "vitest";
import { readCommonEnv } from "../src/env-parse.ts";
import { checkBroker, checkDatabase } from "../src/index.ts";

// A loopback port nothing listens on: bind one, note it, close it.
let closedPort = 0;
beforeAll(async () => {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  closedPort = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
});

test("an unreachable database is named with its address and variable", async () => {
  await expect(
    checkDatabase(`postgres://u:p@127.0.0.1:${closedPort}/orderflow_order`, "ORDER_DATABASE_URL"),
  ).rejects.toThrow(
    new RegExp(
      `cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closedPort}/orderflow_order \\(ORDER_DATABASE_URL\\)`,
    ),
  );
});

test("a broker unreachable on every node is named with each node and the variable", async () => {
  const urls = [
    `amqp://u:p@127.0.0.1:${closedPort}/orderflow`,
    `amqp://u:p@127.0.0.1:${closedPort}/orderflow`,
  ];
  await expect(checkBroker(urls, "ORDER_AMQP_URLS")).rejects.toThrow(
    /cannot reach RabbitMQ on any node \(ORDER_AMQP_URLS\): 127\.0\.0\.1:\d+/,
  );
});

test("a missing variable is named", () => {
  expect(() => readCommonEnv({}, "POINTS", 3003)).toThrow("POINTS_DATABASE_URL is required");
  expect(() =>
    readCommonEnv({ POINTS_DATABASE_URL: "postgres://x", POINTS_PORT: "abc" }, "POINTS", 3003),
  ).toThrow('POINTS_PORT must be an integer 0-65535, got "abc"');
});
