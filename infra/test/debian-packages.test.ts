import { expect, test } from "vitest";
import { ensureInstalled, type Requirement } from "../src/debian-packages.ts";

const missing: Requirement = {
  what: "RabbitMQ server",
  debianPackage: "rabbitmq-server",
  present: () => false,
};

test("a missing Debian package is named with its install command when not running as root", async () => {
  await expect(ensureInstalled([missing], false, () => {})).rejects.toThrow(
    /missing: RabbitMQ server \(Debian package rabbitmq-server\).*apt-get install -y rabbitmq-server/,
  );
});

test("nothing is installed when every program is present", async () => {
  const logs: string[] = [];
  await ensureInstalled([{ ...missing, present: () => true }], true, (m) => logs.push(m));
  expect(logs).toEqual([]);
});
