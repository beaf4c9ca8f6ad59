// What tests, the fault lab and scripts use of the local stack.

export { alertmanagerUrl } from "./alertmanager.ts";
export {
  type AppStatus,
  appNames,
  appsStatus,
  appsVariantInUse,
  holdApps,
  releaseApps,
  replicasInUse,
  restartAppsWith,
  serviceUrlsInUse,
} from "./apps/control.ts";
export { appDefinitions, serviceInstanceUrls } from "./apps/definitions.ts";
export { instanceName, readHeld, readState } from "./apps/state.ts";
export type { AppVariant } from "./apps/variant.ts";
export { amqpUrlsFor as amqpUrls } from "./broker-urls.ts";
export * from "./chaos.ts";
export { type ComposeStackView, openComposeStack } from "./compose/stack-view.ts";
export { readInfraEnv, repoRoot } from "./env.ts";
export { type BrokerNodeLayout, type Layout, MAX_REPLICAS, stackLayout } from "./layout.ts";
export { brokerNetworkLeft } from "./netns.ts";
export { openStack, type Stack } from "./open-stack.ts";
export {
  type Cut,
  currentCuts,
  cutText,
  describeCuts,
  PARTITION_KINDS,
  type PartitionKind,
  partitionCuts,
  partitionDetail,
  partitionFocus,
} from "./partitions.ts";
export { adminUrl, POSTGRES_SETTINGS, serviceUrl } from "./postgres.ts";
export { isAlive, waitFor } from "./proc.ts";
export { localTargets, prometheusUrl, type TargetGroup } from "./prometheus.ts";
export {
  brokerHealth,
  DEFINITIONS_FILE,
  type Definitions,
  leaderOf,
  listQueues,
  nodePid,
  type QueueInfo,
  readDefinitions,
} from "./rabbitmq.ts";
export { redisPid, redisUrl } from "./redis.ts";
export {
  BROKER_ADMIN,
  BROKER_VHOST,
  brokerUser,
  databaseName,
  databaseRole,
  SERVICE_NAMES,
  type ServiceName,
} from "./services.ts";
export {
  down,
  healInfrastructure,
  infrastructureDown,
  infrastructureParts,
  type MonitorStatus,
  type StackStatus,
  stackStatus,
  up,
} from "./stack.ts";
