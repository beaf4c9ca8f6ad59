// Checks that the Debian programs the stack runs are installed; as root, installs missing ones with apt.

import fs from "node:fs";
import { inheritedEnv } from "./env.ts";
import { run } from "./proc.ts";

export interface Requirement {
  what: string;
  debianPackage: string;
  present: () => boolean;
}

export function postgresBinDir(override?: string): string | undefined {
  if (override) return override;
  const base = "/usr/lib/postgresql";
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => fs.existsSync(`${base}/${v}/bin/initdb`))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions[0] === undefined ? undefined : `${base}/${versions[0]}/bin`;
}

export function requirements(opts: { postgresBinDir?: string; rabbitmqBinDir: string }): Requirement[] {
  const onPath = (p: string) => fs.existsSync(p);
  return [
    {
      what: "PostgreSQL server (initdb, pg_ctl)",
      debianPackage: "postgresql",
      present: () => !!postgresBinDir(opts.postgresBinDir),
    },
    { what: "Redis server", debianPackage: "redis-server", present: () => onPath("/usr/bin/redis-server") },
    {
      what: "RabbitMQ server",
      debianPackage: "rabbitmq-server",
      present: () => onPath(`${opts.rabbitmqBinDir}/rabbitmq-server`) && onPath("/usr/bin/epmd"),
    },
    {
      what: "Prometheus (prometheus, promtool)",
      debianPackage: "prometheus",
      present: () => onPath("/usr/bin/prometheus") && onPath("/usr/bin/promtool"),
    },
    {
      what: "Alertmanager (prometheus-alertmanager, amtool)",
      debianPackage: "prometheus-alertmanager",
      present: () => onPath("/usr/bin/prometheus-alertmanager") && onPath("/usr/bin/amtool"),
    },
    {
      what: "PostgreSQL exporter",
      debianPackage: "prometheus-postgres-exporter",
      present: () => onPath("/usr/bin/prometheus-postgres-exporter"),
    },
    {
      what: "Redis exporter",
      debianPackage: "prometheus-redis-exporter",
      present: () => onPath("/usr/bin/prometheus-redis-exporter"),
    },
  ];
}

export async function ensureInstalled(
  reqs: Requirement[],
  isRoot: boolean,
  log: (m: string) => void,
): Promise<void> {
  const missing = reqs.filter((r) => !r.present());
  if (missing.length === 0) return;
  const names = missing.map((m) => m.debianPackage);
  if (!isRoot) {
    throw new Error(
      `missing: ${missing.map((m) => `${m.what} (Debian package ${m.debianPackage})`).join(", ")}. ` +
        `Install with: sudo apt-get install -y ${names.join(" ")}`,
    );
  }
  log(`installing missing Debian packages: ${names.join(" ")}`);
  // Package scripts must not start the system's own instances on the standard ports.
  const env = { ...inheritedEnv(), DEBIAN_FRONTEND: "noninteractive", RUNLEVEL: "1" };
  const update = await run("apt-get", ["update"], { env, timeoutMs: 300_000 });
  if (update.code !== 0) throw new Error(`apt-get update failed: ${update.stderr.slice(-1000)}`);
  const install = await run("apt-get", ["install", "-y", "--no-install-recommends", ...names], {
    env,
    timeoutMs: 900_000,
  });
  if (install.code !== 0)
    throw new Error(`apt-get install ${names.join(" ")} failed: ${install.stderr.slice(-1000)}`);
  const still = missing.filter((r) => !r.present());
  if (still.length > 0)
    throw new Error(`still missing after apt-get: ${still.map((m) => m.what).join(", ")}`);
}
