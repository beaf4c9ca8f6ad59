// The stack's Redis: loopback only, a password (its config file, mode 600, holds it: never on a command
// line), nothing on disk (it only speeds up duplicate detection; the databases hold the truth), so
// stopping it loses nothing that matters.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Layout } from "./layout.ts";
import { isAlive, readPid, spawnDaemon, stopPid, waitFor } from "./proc.ts";
import type { StackSecrets } from "./secrets.ts";

export const redisUrl = (s: { layout: Layout; secrets: Pick<StackSecrets, "redis"> }): string =>
  `redis://:${encodeURIComponent(s.secrets.redis)}@127.0.0.1:${s.layout.redis.port}`;

export function redisPid(layout: Layout): number | undefined {
  const pid = readPid(layout.redis.pidFile);
  return isAlive(pid) ? pid : undefined;
}

/** Sends AUTH and PING over a raw socket: true on +PONG. */
export function pingRedis(port: number, password: string, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on("error", () => done(false));
    let answer = "";
    socket.on("connect", () => socket.write(`AUTH ${password}\r\nPING\r\n`));
    socket.on("data", (b) => {
      answer += b.toString();
      if (answer.includes("\r\n") && !answer.startsWith("+OK")) done(false);
      else if (answer.includes("+PONG")) done(true);
    });
  });
}

export async function startRedis(layout: Layout, password: string): Promise<void> {
  if (redisPid(layout)) return;
  const { port, dir, pidFile, logFile } = layout.redis;
  fs.mkdirSync(dir, { recursive: true });
  const conf = path.join(dir, "redis.conf");
  const settings = [
    `port ${port}`,
    "bind 127.0.0.1",
    'save ""',
    "appendonly no",
    `dir ${dir}`,
    "daemonize no",
  ];
  fs.writeFileSync(conf, `${[...settings, `requirepass ${password}`].join("\n")}\n`, { mode: 0o600 });
  const pid = spawnDaemon("redis-server", [conf], { logFile });
  fs.writeFileSync(pidFile, `${pid}\n`);
  await waitFor(
    `Redis on port ${port} (see ${logFile})`,
    async () => isAlive(pid) && (await pingRedis(port, password)),
    {
      timeoutMs: 15_000,
    },
  );
}

export async function stopRedis(layout: Layout): Promise<void> {
  await stopPid(redisPid(layout), 10_000);
  fs.rmSync(layout.redis.pidFile, { force: true });
}
