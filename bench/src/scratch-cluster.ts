// A PostgreSQL cluster of the bench's own, for a contender that needs a server setting the stack's
// PostgreSQL does not have (logical decoding needs wal_level=logical, which only a restart can set, and
// restarting the stack's server would disturb the other sections and anyone sharing the stack). Same
// binaries and the same settings as the stack's server (infra/src/postgres.ts) plus the one it needs;
// fsync, synchronous_commit and full_page_writes stay on, as there. Loopback only, trust auth: it lives
// for one section and holds nothing but bench rows. Stopped and deleted when the section ends; a
// cluster a crashed run left in the same folder is stopped and deleted before the next one starts.
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { POSTGRES_SETTINGS, type Stack } from "@orderflow/infra";

export const SUPERUSER = "postgres";

export interface ScratchCluster {
  port: number;
  /** A connection string to `database` as the superuser. */
  url(database?: string): string;
  /** The postmaster's PID: the root of every process of this cluster, for the CPU figures. */
  pid(): number | undefined;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[], asPostgres: boolean, timeoutMs = 90_000): Promise<string> {
  const [file, argv] = asPostgres ? ["runuser", ["-u", SUPERUSER, "--", cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: timeoutMs }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} failed: ${stderr || stdout || err.message}`)) : resolve(stdout),
    );
  });
}

/** A loopback port nobody listens on right now (the kernel's choice). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const readPid = (dataDir: string): number | undefined => {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Starts a fresh cluster with `extraSettings` on top of the stack's. One folder per stack (its
 * PostgreSQL port in the name), so two stacks on one machine do not share it.
 */
export async function startScratchCluster(stack: Stack, extraSettings: string[]): Promise<ScratchCluster> {
  const asPostgres = stack.pg.isRoot; // PostgreSQL refuses to run as root
  const bin = (p: string) => path.join(stack.pg.binDir, p);
  const dir = path.join(os.tmpdir(), `orderflow-bench-cluster-${stack.layout.postgres.port}`);
  const dataDir = path.join(dir, "data");
  if (readPid(dataDir) !== undefined)
    await run(bin("pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"], asPostgres).catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  if (asPostgres) await run("chown", [`${SUPERUSER}:${SUPERUSER}`, dir], false);
  await run(
    bin("initdb"),
    ["-D", dataDir, "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8", "--no-instructions"],
    asPostgres,
  );
  fs.writeFileSync(
    path.join(dataDir, "pg_hba.conf"),
    ["host all all 127.0.0.1/32 trust", "host replication all 127.0.0.1/32 trust", ""].join("\n"),
  );
  const port = await freePort();
  const opts = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    ...[...POSTGRES_SETTINGS, ...extraSettings].map((s) => `-c ${s}`),
  ].join(" ");
  const logFile = path.join(dir, "postgres.log");
  await run(bin("pg_ctl"), ["-D", dataDir, "-l", logFile, "-w", "-t", "60", "-o", opts, "start"], asPostgres);
  let stopped = false;
  return {
    port,
    url: (database = "postgres") => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`,
    pid: () => readPid(dataDir),
    async stop() {
      if (stopped) return;
      stopped = true;
      await run(bin("pg_ctl"), ["-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"], asPostgres).catch(
        () => {},
      );
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
