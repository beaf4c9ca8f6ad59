// What separates a service's migrations from its schema: replay the migrations on a scratch database,
// then ask Prisma's schema engine for the SQL that takes that database to the schema. Empty: they agree.
import { applyMigrations } from "../src/migrate.ts";
import { noFilters, openPrismaEngine } from "./schema-engine.ts";
import { withScratchDatabase } from "./scratch-database.ts";
import type { ServiceSchema } from "./service-schema.ts";

/** The SQL a new migration needs, or null when the migrations already produce the schema. */
export function schemaDrift(schema: ServiceSchema, adminUrl: string): Promise<string | null> {
  return withScratchDatabase(adminUrl, async (url) => {
    await applyMigrations({ databaseUrl: url, migrationsDirs: [schema.migrationsDir] });
    const engine = await openPrismaEngine(url);
    try {
      const result = await engine.diff({
        from: { tag: "schemaDatasource", files: schema.files, configDir: schema.prismaDir },
        to: { tag: "schemaDatamodel", files: schema.files },
        script: true,
        exitCode: true,
        filters: noFilters,
      });
      return result.exitCode === 2 ? (result.stdout ?? "") : null;
    } finally {
      await engine.close();
    }
  });
}
