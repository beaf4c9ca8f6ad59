// AMQP URLs of every node, as the broker admin or as one service's user.

import type { Stack } from "./open-stack.ts";
import { BROKER_ADMIN, BROKER_VHOST, brokerUser, type ServiceName } from "./services.ts";

export function amqpUrlsFor(
  s: Pick<Stack, "layout" | "secrets">,
  as: ServiceName | "admin" = "admin",
): string[] {
  const [user, pass] =
    as === "admin" ? [BROKER_ADMIN, s.secrets.brokerAdmin] : [brokerUser(as), s.secrets.broker[as]];
  const cred = `${encodeURIComponent(user)}:${encodeURIComponent(pass)}`;
  return s.layout.rabbitmq.nodes.map(
    (n) => `amqp://${cred}@${n.host}:${n.amqpPort}/${encodeURIComponent(BROKER_VHOST)}`,
  );
}
