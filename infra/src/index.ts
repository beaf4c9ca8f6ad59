// What tests, the fault lab and scripts use of the local stack.

export { alertmanagerUrl } from "./alertmanager.ts";
export {
  type AppStatus,
  appsStatus,
  appsVariantInUse,
  holdApps,
  releaseApps,
  restartAppsWith,
} from "./apps/control.ts";
export type { AppVariant } from "./apps/variant.ts";
export { amqpUrlsFor as amqpUrls } from "./broker-urls.ts";
export * from "./chaos.ts";
export { readInfraEnv, repoRoot } from "./env.ts";
export {
  type BookAction,
  badRequest,
  conflict,
  createFaultBook,
  createFaultController,
  FAULT_ACTIONS,
  type Fault,
  type FaultAction,
  type FaultActionShape,
  type FaultController,
  type FaultControllerOptions,
  type FaultRequest,
  FaultRequestError,
  MAX_FAULT_DURATION_S,
  type PreparedFault,
  parseFaultRequest,
} from "./faults.ts";
export { type Layout, stackLayout } from "./layout.ts";
export { openStack, type Stack } from "./open-stack.ts";
export { adminUrl, serviceUrl } from "./postgres.ts";
export { localTargets, prometheusUrl, type TargetGroup } from "./prometheus.ts";
export {
  DEFINITIONS_FILE,
  type Definitions,
  leaderOf,
  listQueues,
  type QueueInfo,
  readDefinitions,
} from "./rabbitmq.ts";
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
