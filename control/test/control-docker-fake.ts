// A stand-in for the Docker Engine API on a unix socket: the containers of one compose project, and
// kill/stop/start/restart/inspect and network connect/disconnect answered as the engine does (204, 304 when already in that state, 409
// when killing a stopped container, 404 for an unknown id). Throwaway containers run in another's network
// namespace play the `ip route` scripts the partition faults send on that container's blackhole routes.
// It records every call. Test code only: it stands for the engine, not for anything whose delivery
// guarantee is under test.
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
  /** Its address on every network. */
  ip: string;
  image: string;
  /** Destinations of the blackhole routes in its network namespace. */
  blackholes: Set<string>;
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
  "network-tools",
];

/** Plays a helper's `sh -c` script of `ip route` commands joined by &&; returns exit code and output. */
function playRoutes(script: string, c: FakeContainer): { code: number; output: string } {
  let output = "";
  for (const cmd of script.split("&&").map((x) => x.trim())) {
    const m = /^ip route(?: (replace|del) blackhole ([0-9.]+)\/32)?$/.exec(cmd);
    if (!m) return { code: 127, output: `${output}sh: ${cmd}: not understood by the fake\n` };
    if (!m[1])
      output += ["default via 10.0.0.1 dev eth0", ...[...c.blackholes].map((d) => `blackhole ${d} `)].join(
        "\n",
      );
    else if (m[1] === "replace") c.blackholes.add(m[2] as string);
    else if (!c.blackholes.delete(m[2] as string))
      return { code: 2, output: `${output}RTNETLINK answers: No such process\n` };
  }
  return { code: 0, output };
}

/** One stdout frame of a container's log stream, as the engine sends it without a TTY. */
function logFrame(text: string): Buffer {
  const body = Buffer.from(text, "utf8");
  const head = Buffer.alloc(8);
  head[0] = 1;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

export async function startFakeEngine(project: string): Promise<FakeEngine> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-docker-"));
  const socketPath = path.join(dir, "docker.sock");
  const calls: string[] = [];
  const containers = new Map<string, FakeContainer>();
  for (const [i, service] of COMPOSE_SERVICES.entries()) {
    const id = `c${String(i).padStart(3, "0")}${service.replace(/[^a-z0-9]/g, "")}`;
    containers.set(id, {
      id,
      service,
      running: service !== "network-tools",
      networks: { [`${project}_default`]: [service, id] },
      ip: `10.0.0.${i + 2}`,
      image: service === "network-tools" ? "busybox:test" : `${service}:test`,
      blackholes: new Set(),
    });
  }
  // Throwaway containers: id -> the container whose namespace it shares, its script, and its outcome.
  const helpers = new Map<string, { target: string; script: string; code?: number; output?: string }>();

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
          Image: c.image,
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
    if (req.method === "POST" && url.pathname === "/containers/create") {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        const b = JSON.parse(body) as {
          Cmd?: string[];
          HostConfig?: { NetworkMode?: string; CapAdd?: string[] };
        };
        const target = /^container:(.+)$/.exec(b.HostConfig?.NetworkMode ?? "")?.[1] ?? "";
        if (!containers.has(target)) return json(res, 404, { message: `No such container: ${target}` });
        if (!b.HostConfig?.CapAdd?.includes("NET_ADMIN")) return json(res, 400, { message: "no NET_ADMIN" });
        const id = `h${helpers.size + 1}`;
        helpers.set(id, { target, script: b.Cmd?.at(-1) ?? "" });
        return json(res, 201, { Id: id });
      });
      return;
    }
    const h = /^\/containers\/(h\d+)(?:\/(start|wait|logs))?$/.exec(url.pathname);
    const helper = h ? helpers.get(h[1] as string) : undefined;
    if (h && helper) {
      if (req.method === "DELETE") {
        helpers.delete(h[1] as string);
        return empty(res, 204);
      }
      if (h[2] === "start") {
        const r = playRoutes(helper.script, containers.get(helper.target) as FakeContainer);
        helper.code = r.code;
        helper.output = r.output;
        return empty(res, 204);
      }
      if (h[2] === "wait") return json(res, 200, { StatusCode: helper.code ?? -1 });
      res.writeHead(200, { "content-type": "application/vnd.docker.multiplexed-stream" });
      return res.end(logFrame(helper.output ?? ""));
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
                { NetworkID: name, Aliases: aliases, IPAddress: c.ip },
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
