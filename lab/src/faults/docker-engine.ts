// A tiny client of the Docker Engine API over its unix socket, for the control service in compose: the
// containers of one compose project, and kill/stop/start/restart/inspect of one of them. node:http with
// socketPath is all it takes, so no Docker SDK dependency. Paths carry no API version: the daemon then
// speaks its own, and newer engines refuse old pinned versions (Docker 29 requires 1.44 or later).
import http from "node:http";

export interface DockerEngineOptions {
  /** The engine's unix socket (DOCKER_SOCKET; /var/run/docker.sock by default). */
  socketPath: string;
  /** Bound of every call but stop/restart, which also get the container's own stop timeout. */
  timeoutMs?: number;
}

export interface ContainerSummary {
  id: string;
  /** The container's name without Docker's leading "/", e.g. "orderflow-rabbitmq-2-1". */
  name: string;
  /** Its compose service (label com.docker.compose.service). */
  service: string;
  /** Docker's state: created, running, paused, restarting, removing, exited or dead. */
  state: string;
  /** The image it was created from, as configured (the override's local image where one stands in). */
  image: string;
}

/** What a command run in a throwaway container returned. */
export interface HelperRun {
  exitCode: number;
  /** Its stdout and stderr, interleaved as written. */
  output: string;
}

export interface ContainerState {
  status: string;
  running: boolean;
  /** The health check's verdict, undefined when the container has none. */
  health: "starting" | "healthy" | "unhealthy" | undefined;
}

export interface DockerEngine {
  /** Containers of a compose project (stopped ones too), optionally only those of one service. */
  listContainers(project: string, service?: string): Promise<ContainerSummary[]>;
  inspect(id: string): Promise<ContainerState>;
  /** Sends a signal (SIGKILL by default). A container that is not running is a DockerApiError 409. */
  kill(id: string, signal?: string): Promise<void>;
  /** SIGTERM, then SIGKILL after timeoutS. False when it was stopped already (the engine's 304). */
  stop(id: string, timeoutS: number): Promise<boolean>;
  /** False when it was running already (the engine's 304). */
  start(id: string): Promise<boolean>;
  restart(id: string, timeoutS: number): Promise<void>;
  /** The networks a container is attached to, with the aliases compose gave it on each. */
  networks(id: string): Promise<ContainerNetwork[]>;
  /** Detaches it from a network: its sockets stay open, but no packet reaches it or leaves it. */
  disconnect(networkId: string, id: string): Promise<void>;
  /** Attaches it again, under the same aliases (compose's service name resolves to it again). */
  connect(networkId: string, id: string, aliases: string[]): Promise<void>;
  /**
   * Runs `cmd` in a throwaway container of `image` that shares the network namespace of container `id`,
   * with NET_ADMIN (its routes and firewall, not its processes or files), and removes it afterwards.
   */
  runInNetworkOf(id: string, image: string, cmd: string[]): Promise<HelperRun>;
}

export interface ContainerNetwork {
  id: string;
  name: string;
  aliases: string[];
  /** Its IPv4 address on that network ("" when it has none). */
  ip: string;
}

/** The engine answered with an error status; `message` is its own explanation. */
export class DockerApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "DockerApiError";
    this.status = status;
  }
}

interface RawResponse {
  status: number;
  body: string;
  raw: Buffer;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function createDockerEngine(opts: DockerEngineOptions): DockerEngine {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const request = (
    method: "GET" | "POST" | "DELETE",
    path: string,
    boundMs = timeoutMs,
    body?: unknown,
  ): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const headers = body === undefined ? {} : { "content-type": "application/json" };
      const req = http.request(
        { socketPath: opts.socketPath, method, path, timeout: boundMs, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const raw = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, body: raw.toString("utf8"), raw });
          });
          res.on("error", reject);
        },
      );
      req.on("timeout", () =>
        req.destroy(new Error(`Docker Engine API: ${method} ${path} took longer than ${boundMs} ms`)),
      );
      req.on("error", (e: NodeJS.ErrnoException) => reject(socketError(e, opts.socketPath)));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  /** Only the listed statuses are answers; anything else becomes a DockerApiError with the engine's message. */
  async function call(
    method: "GET" | "POST" | "DELETE",
    path: string,
    ok: number[],
    boundMs?: number,
    body?: unknown,
  ): Promise<RawResponse> {
    const res = await request(method, path, boundMs, body);
    if (!ok.includes(res.status))
      throw new DockerApiError(res.status, `Docker Engine API: ${method} ${path}: ${engineMessage(res)}`);
    return res;
  }

  const containerPath = (id: string, action = "") =>
    `/containers/${encodeURIComponent(id)}${action ? `/${action}` : "/json"}`;

  return {
    async listContainers(project, service) {
      const labels = [`com.docker.compose.project=${project}`];
      if (service) labels.push(`com.docker.compose.service=${service}`);
      const filters = encodeURIComponent(JSON.stringify({ label: labels }));
      const res = await call("GET", `/containers/json?all=true&filters=${filters}`, [200]);
      return (JSON.parse(res.body) as RawContainer[]).map((c) => ({
        id: c.Id,
        name: (c.Names?.[0] ?? c.Id).replace(/^\//, ""),
        service: c.Labels?.["com.docker.compose.service"] ?? "",
        state: c.State ?? "unknown",
        image: c.Image ?? "",
      }));
    },
    async inspect(id) {
      const res = await call("GET", containerPath(id), [200]);
      const s = (JSON.parse(res.body) as { State?: RawState }).State ?? {};
      return { status: s.Status ?? "unknown", running: s.Running === true, health: s.Health?.Status };
    },
    async kill(id, signal = "SIGKILL") {
      await call("POST", `${containerPath(id, "kill")}?signal=${encodeURIComponent(signal)}`, [204]);
    },
    async stop(id, timeoutS) {
      // The engine answers once the container has exited: the bound covers its grace period.
      const res = await call(
        "POST",
        `${containerPath(id, "stop")}?t=${timeoutS}`,
        [204, 304],
        timeoutS * 1000 + timeoutMs,
      );
      return res.status === 204;
    },
    async start(id) {
      const res = await call("POST", containerPath(id, "start"), [204, 304]);
      return res.status === 204;
    },
    async restart(id, timeoutS) {
      await call("POST", `${containerPath(id, "restart")}?t=${timeoutS}`, [204], timeoutS * 1000 + timeoutMs);
    },
    async networks(id) {
      const res = await call("GET", containerPath(id), [200]);
      const nets = (JSON.parse(res.body) as RawInspect).NetworkSettings?.Networks ?? {};
      return Object.entries(nets).map(([name, n]) => ({
        id: n.NetworkID ?? name,
        name,
        aliases: n.Aliases ?? [],
        ip: n.IPAddress ?? "",
      }));
    },
    async disconnect(networkId, id) {
      const path = `/networks/${encodeURIComponent(networkId)}/disconnect`;
      await call("POST", path, [200], undefined, { Container: id, Force: false });
    },
    async connect(networkId, id, aliases) {
      const path = `/networks/${encodeURIComponent(networkId)}/connect`;
      await call("POST", path, [200], undefined, { Container: id, EndpointConfig: { Aliases: aliases } });
    },
    async runInNetworkOf(id, image, cmd) {
      const created = await call("POST", "/containers/create", [201], undefined, {
        Image: image,
        Cmd: cmd,
        Labels: { "dev.orderflow.fault-helper": "network" },
        HostConfig: { NetworkMode: `container:${id}`, CapAdd: ["NET_ADMIN"] },
      }).catch((e: unknown) => {
        if (e instanceof DockerApiError && e.status === 404)
          throw new DockerApiError(404, `${e.message} (\`docker compose up\` pulls the network-tools image)`);
        throw e;
      });
      const helper = (JSON.parse(created.body) as { Id: string }).Id;
      try {
        await call("POST", containerPath(helper, "start"), [204]);
        const waited = await call("POST", containerPath(helper, "wait"), [200]);
        const exitCode = (JSON.parse(waited.body) as { StatusCode?: number }).StatusCode ?? -1;
        const logs = await call("GET", `${containerPath(helper, "logs")}?stdout=1&stderr=1`, [200]);
        return { exitCode, output: demultiplex(logs.raw) };
      } finally {
        await call("DELETE", `/containers/${encodeURIComponent(helper)}?force=1`, [204, 404]).catch(() => {});
      }
    },
  };
}

/**
 * A container without a TTY sends its logs as frames: one byte for the stream, three zero bytes, a
 * big-endian 32-bit length, then that many bytes. The streams are joined in the order written.
 */
export function demultiplex(raw: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= raw.length) {
    const size = raw.readUInt32BE(at + 4);
    parts.push(raw.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return Buffer.concat(parts).toString("utf8");
}

interface RawContainer {
  Id: string;
  Names?: string[];
  State?: string;
  Image?: string;
  Labels?: Record<string, string>;
}

interface RawInspect {
  NetworkSettings?: {
    Networks?: Record<string, { NetworkID?: string; Aliases?: string[] | null; IPAddress?: string }>;
  };
}

interface RawState {
  Status?: string;
  Running?: boolean;
  Health?: { Status?: ContainerState["health"] };
}

function engineMessage(res: RawResponse): string {
  try {
    const m = (JSON.parse(res.body) as { message?: unknown }).message;
    if (typeof m === "string" && m) return `HTTP ${res.status}: ${m}`;
  } catch {
    // not JSON: the raw text below says more than nothing
  }
  return `HTTP ${res.status}${res.body ? `: ${res.body.slice(0, 300)}` : ""}`;
}

/** Connection failures name the socket and the variable that sets it: the usual cause is a missing mount. */
function socketError(e: NodeJS.ErrnoException, socketPath: string): Error {
  if (e.code === "ENOENT" || e.code === "ECONNREFUSED" || e.code === "EACCES" || e.code === "ENOTSOCK") {
    const why =
      e.code === "ENOENT"
        ? "no such socket"
        : e.code === "EACCES"
          ? "permission denied"
          : e.code === "ENOTSOCK"
            ? "not a socket"
            : "nothing listens on it";
    return new Error(
      `Docker Engine API unreachable at ${socketPath} (${why}): mount the engine's socket there or set DOCKER_SOCKET`,
      { cause: e },
    );
  }
  return e;
}
