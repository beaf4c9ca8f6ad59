#!/usr/bin/env -S npx tsx
// `messaging redrive <queue> [--id MESSAGE_ID ...]`: moves parked messages back to the work queue.
// Broker URLs come from MESSAGING_AMQP_URLS (comma-separated, admin user). Against the local stack,
// `pnpm stack redrive <queue>` passes the stack's admin URLs itself.
import { ConfigError, parseCli } from "@orderflow/config";
import { createLogger } from "@orderflow/logging";
import { createBrokerConnection } from "./connection.ts";
import { readMessagingEnv } from "./env.ts";
import { redrive } from "./redrive.ts";

const USAGE = `usage: messaging redrive <queue> [--id MESSAGE_ID ...]
  moves the parked messages of <queue> (all, or those with the given ids) back to <queue>
  environment: MESSAGING_AMQP_URLS  comma-separated AMQP URLs of the broker admin, one per node
  (for the local stack: pnpm stack redrive <queue> [--id ...])`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals, fail } = parseCli(
    { usage: USAGE, options: { id: { type: "string", multiple: true } }, positionals: { min: 1, max: 2 } },
    argv,
  );
  const [command, queue] = positionals;
  if (command !== "redrive") return fail(`unknown command "${command}"`);
  if (!queue) return fail("redrive needs a <queue>");
  const { amqpUrls } = readMessagingEnv();
  const log = createLogger({ name: "messaging-redrive", level: "warn", destination: process.stderr });
  const conn = createBrokerConnection({ urls: amqpUrls, name: "messaging-redrive", log });
  try {
    const ids = values.id ?? [];
    const r = await redrive(conn, queue, ids.length > 0 ? { messageIds: ids } : {});
    console.log(JSON.stringify({ queue, moved: r.moved.length, kept: r.kept, messageIds: r.moved }));
    return 0;
  } finally {
    await conn.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error((e as Error).message);
    if (e instanceof ConfigError)
      console.error("(for the local stack: pnpm stack redrive <queue> [--id ...])");
    process.exit(1);
  },
);
