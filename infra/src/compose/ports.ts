// Published ports, moved by ORDERFLOW_COMPOSE_PORT_OFFSET (so a compose stack runs beside a local stack on
// the same ports), and checked free before compose binds them: its own error names no service.
import net from "node:net";
import type { PublishedPort } from "./project.ts";

export const withOffset = (p: PublishedPort, offset: number): PublishedPort => ({
  ...p,
  published: p.published + offset,
});

export class PortInUseError extends Error {}

/** True when something already listens on host:port. */
export function portInUse(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(true));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/** The ports held by another program: not by a container of this project (a warm `up`). */
export async function busyPorts(ports: PublishedPort[], ownPublished: Set<number>): Promise<PublishedPort[]> {
  const busy: PublishedPort[] = [];
  for (const p of ports)
    if (!ownPublished.has(p.published) && (await portInUse(p.host, p.published))) busy.push(p);
  return busy;
}

/**
 * The host ports in `docker ps --format {{.Ports}}` output. Docker prints consecutive ports as a range
 * (127.0.0.1:3001-3003->3001-3003/tcp, the gateway's), so each range counts every port in it.
 */
export function hostPortsOf(psPorts: string): Set<number> {
  return new Set(
    [...psPorts.matchAll(/:(\d+)(?:-(\d+))?->/g)].flatMap((m) => {
      const from = Number(m[1]);
      const to = Number(m[2] ?? m[1]);
      return Array.from({ length: Math.max(0, to - from) + 1 }, (_, i) => from + i);
    }),
  );
}
