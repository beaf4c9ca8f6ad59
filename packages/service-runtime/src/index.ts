export { defineService, type ServiceFolder } from "./define-service.ts";
export { checkBroker, checkDatabase } from "./dependencies.ts";
export {
  type EffectRow,
  type EffectsPage,
  type EffectsPageQuery,
  effectsPageQuery,
  readEffectsPage,
} from "./effects-page.ts";
export { type CommonEnv, type RawEnv, readCommonEnv } from "./env-parse.ts";
export { migrateService } from "./migrations.ts";
export type {
  BatchStep,
  ConsumerStrategies,
  Enqueue,
  MarkDone,
  ServiceParts,
  Step,
  StepContext,
  StepEvent,
  StepMany,
  Subscriptions,
  WriteWithEvents,
} from "./parts.ts";
export {
  migrationsDirOf,
  type PrismaClientClass,
  type PrismaClientLike,
  prismaDatabase,
  type ServiceDatabase,
} from "./prisma-database.ts";
export { main, runService, type ServiceDefinition, type WorkQueue } from "./run-service.ts";
export { type RuntimeOptions, type ServiceRuntime, startServiceRuntime } from "./runtime.ts";
export { onShutdownSignals, shutdownStep } from "./shutdown.ts";
export { batchStep, replyTo } from "./steps.ts";
