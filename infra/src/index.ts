// What tests, the fault lab and scripts use of the local stack.
export * from "./chaos.ts";
export { readInfraEnv, repoRoot } from "./env.ts";
export { type Layout, stackLayout } from "./layout.ts";
export { adminUrl, serviceUrl } from "./postgres.ts";
export { type Definitions, leaderOf, listQueues, type QueueInfo, readDefinitions } from "./rabbitmq.ts";
export { redisUrl } from "./redis.ts";
export {
  BROKER_ADMIN,
  BROKER_VHOST,
  brokerUser,
  databaseName,
  databaseRole,
  SERVICE_NAMES,
  type ServiceName,
} from "./services.ts";
export { down, openStack, type Stack, type StackStatus, stackStatus, up } from "./stack.ts";

import { BROKER_ADMIN, BROKER_VHOST, brokerUser, type ServiceName } from "./services.ts";
import type { Stack } from "./stack.ts";

/** AMQP URLs of every node, as the broker admin or as one service's user. */
export function amqpUrls(s: Stack, as: ServiceName | "admin" = "admin"): string[] {
  const [user, pass] =
    as === "admin" ? [BROKER_ADMIN, s.secrets.brokerAdmin] : [brokerUser(as), s.secrets.broker[as]];
  const cred = `${encodeURIComponent(user)}:${encodeURIComponent(pass)}`;
  return s.layout.rabbitmq.nodes.map(
    (n) => `amqp://${cred}@127.0.0.1:${n.amqpPort}/${encodeURIComponent(BROKER_VHOST)}`,
  );
}
