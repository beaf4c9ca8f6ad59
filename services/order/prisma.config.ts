// Prisma's CLI configuration for the order service's database (`prisma migrate dev`, `migrate deploy`,
// `generate`, `studio` run from this folder). This is a tool's file, not the service's: the service reads
// its configuration in src/env.ts and applies the same migrations itself at start-up.
// Prisma 7 does not read .env: export the variables first. A plain read, not Prisma's env(), so that
// `prisma generate` works without them.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema",
  migrations: { path: "prisma/migrations" },
  datasource: {
    url: process.env.ORDER_DATABASE_URL,
    // `migrate dev` diffs on a scratch database: the service's own role may not create databases, so
    // give it one it may use (see README, "Changing a schema").
    shadowDatabaseUrl: process.env.ORDER_SHADOW_DATABASE_URL,
  },
});
