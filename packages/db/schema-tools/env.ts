// The schema tools' one setting. Unset: the local stack's PostgreSQL (`pnpm stack up`), as its admin.
export interface SchemaToolsEnv {
  /** A role that may create and drop databases: db:new and db:check work on scratch databases. */
  adminUrl: string | undefined;
}

export function readSchemaToolsEnv(env: NodeJS.ProcessEnv = process.env): SchemaToolsEnv {
  const adminUrl = env.ORDERFLOW_DB_ADMIN_URL?.trim() || undefined;
  if (adminUrl !== undefined && !/^postgres(ql)?:\/\//.test(adminUrl)) {
    throw new Error("ORDERFLOW_DB_ADMIN_URL must be a postgres:// URL of a role that may create databases");
  }
  return { adminUrl };
}
