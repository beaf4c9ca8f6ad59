// The services the stack provisions for: one database, one database role and one broker user each.
// docker-compose.yml and infra/postgres/init-databases.sh list the same names (a test checks they agree).
export const SERVICE_NAMES = ["order", "inventory", "points"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const databaseName = (s: ServiceName): string => `orderflow_${s}`;
export const databaseRole = (s: ServiceName): string => `${s}_svc`;
export const brokerUser = (s: ServiceName): string => `${s}-svc`;

export const POSTGRES_ADMIN = "orderflow_admin";
/** The PostgreSQL exporter's login: member of pg_monitor, may connect to the `postgres` database only. */
export const POSTGRES_MONITOR = "orderflow_monitor";
export const BROKER_ADMIN = "orderflow-admin";
export const BROKER_VHOST = "orderflow";
