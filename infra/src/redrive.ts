// `pnpm stack redrive <queue> [--id ...]`: messaging's redrive with the local stack's admin URLs.
import { createLogger } from "@orderflow/logging";
import { createBrokerConnection, type RedriveResult, redrive } from "@orderflow/messaging";
import { amqpUrlsFor } from "./broker-urls.ts";
import type { Stack } from "./open-stack.ts";

/** Moves the parked messages of `queue` (all, or those with `messageIds`) back to `queue`. */
export async function redriveParked(
  s: Stack,
  queue: string,
  messageIds: string[] = [],
): Promise<RedriveResult> {
  const log = createLogger({ name: "stack-redrive", level: "warn", destination: process.stderr });
  const conn = createBrokerConnection({ urls: amqpUrlsFor(s, "admin"), name: "stack-redrive", log });
  try {
    return await redrive(conn, queue, messageIds.length > 0 ? { messageIds } : {});
  } finally {
    await conn.close();
  }
}
