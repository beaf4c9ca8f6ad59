// The only reader of process.env in this package: configuration of the `messaging` CLI.
export interface MessagingEnv {
  /** Comma-separated AMQP URLs, one per node, of a user allowed to read parking lots (the admin). */
  amqpUrls: string[];
}

export function readMessagingEnv(): MessagingEnv {
  const raw = process.env.MESSAGING_AMQP_URLS ?? "";
  const amqpUrls = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return { amqpUrls };
}
