// A service as its folder gives it (its work queue, its database, its routes), composed into what
// runService runs. `moduleUrl` is the import.meta.url of a file in the service's src/: its Prisma-format
// migrations (its own tables; the outbox and inbox come with their packages) are in ../prisma/migrations.
import type { SqlTx } from "@orderflow/db";
import type { CommonEnv } from "./env-parse.ts";
import type { ServiceParts } from "./parts.ts";
import { migrationsDirOf, type ServiceDatabase } from "./prisma-database.ts";
import type { ServiceDefinition, WorkQueue } from "./run-service.ts";

export interface ServiceFolder<Db, Tx extends SqlTx> {
  database: ServiceDatabase<Db, Tx>;
  workQueue: WorkQueue;
  routes: ServiceDefinition<Db, Tx>["routes"];
}

export function defineService<Db, Tx extends SqlTx>(
  service: string,
  moduleUrl: string,
  folder: ServiceFolder<Db, Tx>,
) {
  const migrationsDir = migrationsDirOf(moduleUrl);
  return {
    migrationsDir,
    /** The service with every protection on, or composed with other parts. */
    compose: (env: CommonEnv, parts?: ServiceParts): ServiceDefinition<Db, Tx> => ({
      service,
      env,
      migrationsDir,
      ...folder,
      ...(parts ? { parts } : {}),
    }),
  };
}
