#!/usr/bin/env -S npx tsx
// `messaging redrive <queue> [--id MESSAGE_ID ...]`: moves parked messages back to the work queue.
// Broker URLs come from MESSAGING_AMQP_URLS (comma-separated, admin user), or from the local stack when
// unset (development).
import { createBrokerConnection } from "./connection.ts";
import { readMessagingEnv } from "./env.ts";
import { consoleLogger } from "./logger.ts";
import { redrive } from "./redrive.ts";

const USAGE = "usage: messaging redrive <queue> [--id MESSAGE_ID ...]";

async function localStackUrls(): Promise<string[]> {
  const infra = await import("@orderflow/infra");
  return infra.amqpUrls(infra.openStack(infra.readInfraEnv(), false));
}

async function main(argv: string[]): Promise<number> {
  const [command, queue, ...rest] = argv;
  if (command !== "redrive" || !queue) {
    console.error(USAGE);
    return 2;
  }
  const ids: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "--id" && rest[i + 1]) ids.push(rest[++i] as string);
    else {
      console.error(USAGE);
      return 2;
    }
  }
  const env = readMessagingEnv();
  const urls = env.amqpUrls.length > 0 ? env.amqpUrls : await localStackUrls();
  const conn = createBrokerConnection({ urls, name: "messaging-redrive", log: consoleLogger });
  try {
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
    process.exit(1);
  },
);
