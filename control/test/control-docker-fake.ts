// A stand-in for the Docker Engine API on a unix socket: the containers of one compose project, and
// kill/stop/start/restart/inspect and network connect/disconnect answered as the engine does (204, 304 when already in that state, 409
// when killing a stopped container, 404 for an unknown id). It records every call. Test code only: it
// stands for the engine, not for anything whose delivery guarantee is under test.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

export interface FakeContainer {
  id: string;
  service: string;
  running: boolean;
  /** Network name -> the container's aliases on it. */
  networks: Record<string, string[]>;
}

export interface FakeEngine {
  socketPath: string;
  /** "METHOD path" of every request, in order. */
  calls: string[];
  containers: Map<string, FakeContainer>;
  byService(service: string): FakeContainer;
  close(): Promise<void>;
}

export const COMPOSE_SERVICES = [
  "order",
  "inventory",
  "points",
  "relay-order",
  "relay-inventory",
  "relay-points",
  "rabbitmq-1",
  "rabbitmq-2",
  "rabbitmq-3",
  "redis",
  "postgres",
];

export async function startFakeEngine(project: string): Promise<FakeEngine> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-docker-"));
  const socketPath = path.join(dir, "docker.sock");
  const calls: string[] = [];
  const containers = new Map<string, FakeContainer>();
  for (const [i, service] of COMPOSE_SERVICES.entries()) {
    const id = `c${String(i).padStart(3, "0")}${service.replace(/[^a-z0-9]/g, "")}`;
    containers.set(id, { id, service, running: true, networks: { [`${project}_default`]: [service, id] } });
  }

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const empty = (res: http.ServerResponse, status: number) => {
    res.writeHead(status);
    res.end();
  };

  const server = http.createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? "/", "http://docker");
    if (req.method === "GET" && url.pathname === "/containers/json") {
      const labels =
        (JSON.parse(url.searchParams.get("filters") ?? "{}") as { label?: string[] }).label ?? [];
      const list = [...containers.values()]
        .filter((c) =>
          labels.every((l) => {
            const [k, v] = l.split("=");
            if (k === "com.docker.compose.project") return v === project;
            if (k === "com.docker.compose.service") return v === c.service;
            return false;
          }),
        )
        .map((c) => ({
          Id: c.id,
          Names: [`/${project}-${c.service}-1`],
          State: c.running ? "running" : "exited",
          Labels: { "com.docker.compose.project": project, "com.docker.compose.service": c.service },
        }));
      return json(res, 200, list);
    }
    const net = /^\/networks\/([^/]+)\/(connect|disconnect)$/.exec(url.pathname);
    if (req.method === "POST" && net) {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        const name = decodeURIComponent(net[1] as string);
        const b = JSON.parse(body || "{}") as { Container?: string; EndpointConfig?: { Aliases?: string[] } };
        const target = containers.get(b.Container ?? "");
        if (!target) return json(res, 404, { message: `No such container: ${b.Container}` });
        if (net[2] === "disconnect") {
          if (!target.networks[name]) return json(res, 403, { message: "container is not connected" });
          delete target.networks[name];
        } else {
          if (target.networks[name]) return json(res, 403, { message: "endpoint already exists" });
          target.networks[name] = b.EndpointConfig?.Aliases ?? [];
        }
        return empty(res, 200);
      });
      return;
    }
    const m = /^\/containers\/([^/]+)\/(json|kill|stop|start|restart)$/.exec(url.pathname);
    const c = m ? containers.get(decodeURIComponent(m[1] as string)) : undefined;
    if (!m || !c) return json(res, 404, { message: `No such container: ${m?.[1] ?? url.pathname}` });
    switch (m[2]) {
      case "json":
        return json(res, 200, {
          Id: c.id,
          State: {
            Status: c.running ? "running" : "exited",
            Running: c.running,
            Health: { Status: c.running ? "healthy" : "unhealthy" },
          },
          NetworkSettings: {
            Networks: Object.fromEntries(
              Object.entries(c.networks).map(([name, aliases]) => [
                name,
                { NetworkID: name, Aliases: aliases },
              ]),
            ),
          },
        });
      case "kill":
        if (!c.running) return json(res, 409, { message: `container ${c.id} is not running` });
        c.running = false;
        return empty(res, 204);
      case "stop":
        if (!c.running) return empty(res, 304);
        c.running = false;
        return empty(res, 204);
      case "start":
        if (c.running) return empty(res, 304);
        c.running = true;
        return empty(res, 204);
      default:
        c.running = true;
        return empty(res, 204);
    }
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));

  return {
    socketPath,
    calls,
    containers,
    byService(service) {
      const c = [...containers.values()].find((x) => x.service === service);
      if (!c) throw new Error(`fake engine: no container of ${service}`);
      return c;
    },
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        }),
      ),
  };
}
