// The stack's PostgreSQL instance: one database and one login role per service, each role able to
// connect only to its own database. Runs as the `postgres` OS user when the stack runs as root.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { Layout } from "./layout.ts";
import { isAlive, readPid, run, runOrThrow, waitFor } from "./proc.ts";
import type { StackSecrets } from "./secrets.ts";
import {
  databaseName,
  databaseRole,
  POSTGRES_ADMIN,
  POSTGRES_MONITOR,
  SERVICE_NAMES,
  type ServiceName,
} from "./services.ts";

export interface PostgresDeps {
  layout: Layout;
  secrets: StackSecrets;
  binDir: string;
  isRoot: boolean;
}

const OS_USER = "postgres";

export function postgresUrl(layout: Layout, user: string, password: string, database: string): string {
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${layout.postgres.port}/${database}`;
}

export const adminUrl = (d: Pick<PostgresDeps, "layout" | "secrets">, database = "postgres"): string =>
  postgresUrl(d.layout, POSTGRES_ADMIN, d.secrets.postgresAdmin, database);

/** The exporter's URL: the `postgres` database, where pg_stat_* cover the whole instance. */
export const monitorUrl = (d: Pick<PostgresDeps, "layout" | "secrets">): string =>
  `${postgresUrl(d.layout, POSTGRES_MONITOR, d.secrets.postgresMonitor, "postgres")}?sslmode=disable`;

export const serviceUrl = (d: Pick<PostgresDeps, "layout" | "secrets">, s: ServiceName): string =>
  postgresUrl(d.layout, databaseRole(s), d.secrets.databases[s], databaseName(s));

function pgRun(d: PostgresDeps, program: string, args: string[], timeoutMs = 90_000) {
  return run(path.join(d.binDir, program), args, { asUser: d.isRoot ? OS_USER : undefined, timeoutMs });
}

function chownToPostgres(d: PostgresDeps, target: string): Promise<string> | undefined {
  return d.isRoot
    ? runOrThrow(`chown ${target}`, "chown", ["-R", `${OS_USER}:${OS_USER}`, target])
    : undefined;
}

export function postgresPid(layout: Layout): number | undefined {
  const pid = readPid(path.join(layout.postgres.dataDir, "postmaster.pid"));
  return isAlive(pid) ? pid : undefined;
}

async function initCluster(d: PostgresDeps): Promise<void> {
  const { dir, dataDir, socketDir } = d.layout.postgres;
  if (fs.existsSync(path.join(dataDir, "PG_VERSION"))) return;
  fs.mkdirSync(socketDir, { recursive: true });
  const pwFile = path.join(dir, "admin.pw");
  fs.writeFileSync(pwFile, d.secrets.postgresAdmin, { mode: 0o600 });
  await chownToPostgres(d, dir);
  try {
    const r = await pgRun(d, "initdb", [
      "-D",
      dataDir,
      "-U",
      POSTGRES_ADMIN,
      `--pwfile=${pwFile}`,
      "--auth-host=scram-sha-256",
      "--auth-local=peer",
      "--encoding=UTF8",
      "--no-instructions",
    ]);
    if (r.code !== 0) throw new Error(`initdb failed: ${r.stderr || r.stdout}`);
  } finally {
    fs.rmSync(pwFile, { force: true });
  }
  // Loopback TCP only, with passwords; the Unix socket lives in the stack folder.
  fs.writeFileSync(
    path.join(dataDir, "pg_hba.conf"),
    [
      "# orderflow local stack: password logins over loopback only.",
      "local all all peer",
      "host all all 127.0.0.1/32 scram-sha-256",
      "",
    ].join("\n"),
  );
}

/** The server settings the stack starts PostgreSQL with; docker-compose.yml passes the same (a test checks). */
export const POSTGRES_SETTINGS = [
  "max_connections=300",
  "shared_buffers=256MB",
  // Checkpoints by time every 15 min and by WAL volume only past 4 GB (defaults 5 min, 1 GB): right after
  // a checkpoint begins, the first change to each page writes the whole page to the WAL, so under the
  // saga's load a checkpoint every few minutes is a burst of WAL and of commit latency (with the
  // defaults, a WAL-triggered checkpoint began inside each of two consecutive half-rate bench runs).
  // Costs only a longer crash recovery;
  // fsync, synchronous_commit and full_page_writes stay on.
  "max_wal_size=4GB",
  "checkpoint_timeout=15min",
] as const;

export async function startPostgres(d: PostgresDeps): Promise<void> {
  await initCluster(d);
  if (postgresPid(d.layout)) return;
  const { port, dataDir, socketDir, logFile } = d.layout.postgres;
  const opts = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${socketDir}`,
    ...POSTGRES_SETTINGS.map((setting) => `-c ${setting}`),
  ].join(" ");
  const r = await pgRun(d, "pg_ctl", ["-D", dataDir, "-l", logFile, "-w", "-t", "60", "-o", opts, "start"]);
  if (r.code !== 0)
    throw new Error(`PostgreSQL did not start on port ${port}: ${r.stderr || r.stdout}; see ${logFile}`);
}

export async function stopPostgres(d: PostgresDeps): Promise<void> {
  if (!postgresPid(d.layout)) return;
  await pgRun(d, "pg_ctl", ["-D", d.layout.postgres.dataDir, "-m", "fast", "-w", "-t", "60", "stop"]);
}

export async function restartPostgres(d: PostgresDeps): Promise<void> {
  await stopPostgres(d);
  await startPostgres(d);
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Creates (or re-syncs) every service's role and database. Idempotent. */
export async function provisionDatabases(d: PostgresDeps): Promise<void> {
  await waitFor("PostgreSQL to accept the admin login", () => withClient(adminUrl(d), async () => true), {
    timeoutMs: 30_000,
  });
  await withClient(adminUrl(d), async (c) => {
    for (const s of SERVICE_NAMES) {
      const role = databaseRole(s);
      const db = databaseName(s);
      const roleExists = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
      const verb = roleExists.rowCount ? "ALTER" : "CREATE";
      await c.query(`${verb} ROLE ${ident(role)} LOGIN PASSWORD ${literal(d.secrets.databases[s])}`);
      const dbExists = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [db]);
      if (!dbExists.rowCount) await c.query(`CREATE DATABASE ${ident(db)} OWNER ${ident(role)}`);
      // Only the owning role (and the admin) may connect: other services' roles are refused.
      await c.query(`REVOKE ALL ON DATABASE ${ident(db)} FROM PUBLIC`);
      await c.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(db)} TO ${ident(role)}`);
    }
    await c.query("REVOKE ALL ON DATABASE postgres FROM PUBLIC");
    // The exporter reads statistics (pg_monitor) and no table of any service.
    const monitor = ident(POSTGRES_MONITOR);
    const monitorExists = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [POSTGRES_MONITOR]);
    const verb = monitorExists.rowCount ? "ALTER" : "CREATE";
    await c.query(`${verb} ROLE ${monitor} LOGIN PASSWORD ${literal(d.secrets.postgresMonitor)}`);
    await c.query(`GRANT pg_monitor TO ${monitor}`);
    await c.query(`GRANT CONNECT ON DATABASE postgres TO ${monitor}`);
  });
}

export interface PostgresHealth {
  healthy: boolean;
  databases: Record<ServiceName, { healthy: boolean; error?: string }>;
}

/** Healthy when each service's role can log into its own database. */
export async function postgresHealth(d: Pick<PostgresDeps, "layout" | "secrets">): Promise<PostgresHealth> {
  const entries = await Promise.all(
    SERVICE_NAMES.map(async (s) => {
      try {
        await withClient(serviceUrl(d, s), (c) => c.query("SELECT 1"));
        return [s, { healthy: true }] as const;
      } catch (e) {
        return [s, { healthy: false, error: (e as Error).message }] as const;
      }
    }),
  );
  const databases = Object.fromEntries(entries) as PostgresHealth["databases"];
  return { healthy: Object.values(databases).every((x) => x.healthy), databases };
}
