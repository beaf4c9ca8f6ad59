// The stack's Redis takes commands only after AUTH with the password from the stack secrets.
import net from "node:net";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { expect, test } from "vitest";
import type { Stack } from "../src/index.ts";
import { pingRedis } from "../src/redis.ts";

/** What Redis answers a PING sent without AUTH. */
const bareAnswer = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (b) => {
      resolve(b.toString());
      socket.destroy();
    });
    socket.on("close", () => resolve(""));
  });

test("Redis refuses a client without the password or with a wrong one, and answers the right one", async () => {
  const s: Stack = await requireHealthyStack();
  expect(await bareAnswer(s.layout.redis.port)).toMatch(/^-NOAUTH/);
  expect(await pingRedis(s.layout.redis.port, "wrong-password")).toBe(false);
  expect(await pingRedis(s.layout.redis.port, s.secrets.redis)).toBe(true);
});
