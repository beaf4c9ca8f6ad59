// Passwords and the Erlang cookie of the local stack: generated on first `up`, kept in the git-ignored
// stack folder (mode 600), never in the repository.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { SERVICE_NAMES, type ServiceName } from "./services.ts";

export interface StackSecrets {
  postgresAdmin: string;
  databases: Record<ServiceName, string>;
  /** The PostgreSQL exporter's read-only login (pg_monitor). */
  postgresMonitor: string;
  brokerAdmin: string;
  broker: Record<ServiceName, string>;
  erlangCookie: string;
  /** Redis' requirepass. */
  redis: string;
  /** The services' bearer token for /admin routes. */
  adminToken: string;
  /** The control service's bearer token for its POSTs (faults, scenario runs). */
  controlToken: string;
}

// Hex: a base64url token may start with "-", which rabbitmqctl takes for an option
// ("change_password points-svc -xdjv..." failed a stack up), and "_"/"-" need care in URLs and shells.
const token = (bytes = 18): string => randomBytes(bytes).toString("hex");

function generate(): StackSecrets {
  const perService = () =>
    Object.fromEntries(SERVICE_NAMES.map((s) => [s, token()])) as Record<ServiceName, string>;
  return {
    postgresAdmin: token(),
    databases: perService(),
    postgresMonitor: token(),
    brokerAdmin: token(),
    broker: perService(),
    erlangCookie: randomBytes(20).toString("hex").toUpperCase(),
    redis: token(),
    adminToken: token(24),
    controlToken: token(24),
  };
}

export function readSecrets(file: string): StackSecrets | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as StackSecrets;
  } catch {
    return undefined;
  }
}

/** The stack's secrets; a file from an older version gains the secrets it lacks, the others kept. */
export function loadOrCreateSecrets(file: string): StackSecrets {
  const existing = readSecrets(file);
  const secrets = { ...generate(), ...existing };
  if (existing && Object.keys(secrets).every((k) => k in existing)) return existing;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
