// The stack's Redis: loopback only, nothing on disk (it only speeds up duplicate detection; the
// databases hold the truth), so stopping it loses nothing that matters.
import fs from "node:fs";
import net from "node:net";
import type { Layout } from "./layout.ts";
import { isAlive, readPid, spawnDaemon, stopPid, waitFor } from "./proc.ts";

export const redisUrl = (layout: Layout): string => `redis://127.0.0.1:${layout.redis.port}`;

export function redisPid(layout: Layout): number | undefined {
  const pid = readPid(layout.redis.pidFile);
  return isAlive(pid) ? pid : undefined;
}

/** Sends PING over a raw socket: true on +PONG. */
export function pingRedis(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (b) => done(b.toString().startsWith("+PONG")));
  });
}

export async function startRedis(layout: Layout): Promise<void> {
  if (redisPid(layout)) return;
  const { port, dir, pidFile, logFile } = layout.redis;
  fs.mkdirSync(dir, { recursive: true });
  const pid = spawnDaemon(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      "--daemonize",
      "no",
    ],
    { logFile },
  );
  fs.writeFileSync(pidFile, `${pid}\n`);
  await waitFor(
    `Redis on port ${port} (see ${logFile})`,
    async () => isAlive(pid) && (await pingRedis(port)),
    {
      timeoutMs: 15_000,
    },
  );
}

export async function stopRedis(layout: Layout): Promise<void> {
  await stopPid(redisPid(layout), 10_000);
  fs.rmSync(layout.redis.pidFile, { force: true });
}
