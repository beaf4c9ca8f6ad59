// The only reader of process.env in this package: configuration of the `messaging` CLI.
import { list, type RawEnv, readEnv, url } from "@orderflow/config";

export interface MessagingEnv {
  /** Comma-separated AMQP URLs, one per node, of a user allowed to read parking lots (the admin). */
  amqpUrls: string[];
}

export function readMessagingEnv(env: RawEnv = process.env): MessagingEnv {
  return readEnv({ amqpUrls: list("MESSAGING_AMQP_URLS", url("", ["amqp:", "amqps:"])).required() }, env);
}
