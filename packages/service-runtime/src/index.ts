export { checkBroker, checkDatabase } from "./dependencies.ts";
export { flag, int, list, optional, type RawEnv, readCommonEnv, required } from "./env-parse.ts";
export {
  LAB_PITFALLS,
  type LabPitfall,
  type LabSwitches,
  labConsumerPitfalls,
  NO_LAB,
  readLabSwitches,
} from "./lab.ts";
export { migrateService, serviceMigrationDirs } from "./migrations.ts";
export { resendOutboxMessage } from "./resend.ts";
export { type CommonEnv, main, runService, type ServiceDefinition } from "./run-service.ts";
export { type RuntimeOptions, type ServiceRuntime, startServiceRuntime } from "./runtime.ts";
export { onShutdownSignals } from "./shutdown.ts";
