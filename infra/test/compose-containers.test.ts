// What a Docker user relies on without reading the file: supported image versions, containers that stop
// gracefully, health checks on everything that restarts, data that survives `docker compose up` again.

// The services' own signal handler, read from its source: infra does not depend on service-runtime.
import { onShutdownSignals } from "@orderflow/service-runtime";
import { describe, expect, test, vi } from "vitest";
import { BROKER_ADMIN } from "../src/services.ts";
import { appServices, composeService, durationMs, readCompose, readRepoFile } from "./compose-file.ts";

const compose = readCompose();

// The oldest major still supported upstream, per image. An image missing here fails the test, so adding
// one means looking up its support window.
const SUPPORTED_FROM: Record<string, number> = {
  rabbitmq: 4,
  postgres: 17,
  redis: 8,
  node: 22,
  bash: 5,
  // The partition faults' `ip` (network-tools): BusyBox supports only its latest release line.
  busybox: 1,
  // The gateway: 3.0 is an LTS series, supported into 2029.
  haproxy: 3,
  // Monitoring: the current majors (Prometheus 2 is out of support; the others never had a second major).
  prometheus: 3,
  alertmanager: 0,
  "postgres-exporter": 0,
  redis_exporter: 1,
  grafana: 12,
  jaeger: 2,
  // The load profile's k6: its 1.x line is the supported one.
  k6: 1,
};

const pulled = Object.entries(compose.services)
  .filter(([, s]) => s.build === undefined)
  .map(([name, s]) => ({ name, image: s.image ?? "" }));

/** The base images the Dockerfile builds the app image from (not its own stage names). */
function dockerfileBases(): string[] {
  const froms = [...readRepoFile("Dockerfile").matchAll(/^FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/gim)];
  const stages = new Set(froms.map((m) => m[2]?.toLowerCase()).filter(Boolean));
  return froms.map((m) => m[1] as string).filter((image) => !stages.has(image.toLowerCase()));
}

const parseImage = (image: string) => {
  // Prometheus' projects tag v3.5.0: the "v" is not part of the version.
  const m = /^(?:[a-z0-9.-]+\/)*([a-z0-9._-]+):v?(\d+)(?:\.(\d+))?(?:\.\d+)?(?:-[a-z0-9.-]+)?$/.exec(image);
  return m ? { repo: m[1] as string, major: Number(m[2]), minor: m[3] } : undefined;
};

/** How long a service lets its graceful shutdown run after SIGTERM before it exits anyway, measured by
 *  running service-runtime's handler with fake timers and a shutdown that never finishes. */
function serviceForcedExitMs(): number {
  vi.useFakeTimers();
  const handlers = new Map<string, (signal: NodeJS.Signals) => void>();
  const on = vi.spyOn(process, "on").mockImplementation(((event: string, h: (s: NodeJS.Signals) => void) => {
    handlers.set(event, h);
    return process;
  }) as typeof process.on);
  const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as typeof process.exit);
  try {
    const quiet = { info() {}, warn() {}, error() {} };
    onShutdownSignals(() => new Promise<void>(() => {}), {
      log: quiet as unknown as Parameters<typeof onShutdownSignals>[1]["log"],
    });
    const sigterm = handlers.get("SIGTERM");
    if (!sigterm) throw new Error("onShutdownSignals registered no SIGTERM handler");
    const start = Date.now();
    sigterm("SIGTERM");
    vi.advanceTimersToNextTimer();
    expect(exit).toHaveBeenCalledWith(1);
    return Date.now() - start;
  } finally {
    on.mockRestore();
    exit.mockRestore();
    vi.useRealTimers();
  }
}

describe("images", () => {
  test("every image compose pulls is pinned to a version, not to latest or a bare major", () => {
    expect(pulled.length).toBeGreaterThanOrEqual(7);
    for (const { name, image } of pulled) {
      const parsed = parseImage(image);
      expect(parsed, `${name}: "${image}" is not name:MAJOR.MINOR[.PATCH][-variant]`).toBeDefined();
      expect(parsed?.minor, `${name}: "${image}" names only a major`).toBeDefined();
    }
  });

  test("no image, the app image's base included, is of a major past its end of life", () => {
    const images = [...pulled.map((p) => p.image), ...dockerfileBases()];
    for (const image of images) {
      const parsed = parseImage(image);
      const floor = SUPPORTED_FROM[parsed?.repo ?? ""];
      expect(floor, `${image}: no support window recorded in SUPPORTED_FROM`).toBeDefined();
      expect(parsed?.major, `${image} is past its end of life`).toBeGreaterThanOrEqual(floor ?? Infinity);
    }
  });

  test("the one-shot broker setup runs the same RabbitMQ as the nodes (its CLI talks to them)", () => {
    const nodeImage = composeService(compose, "rabbitmq-1").image;
    for (const name of ["rabbitmq-2", "rabbitmq-3", "rabbitmq-setup"])
      expect(composeService(compose, name).image).toBe(nodeImage);
  });
});

describe("stopping, health and data", () => {
  test("every app container's stop_grace_period outlasts the services' forced exit after SIGTERM", () => {
    const forcedExitMs = serviceForcedExitMs();
    expect(forcedExitMs).toBeGreaterThan(1_000);
    const apps = appServices(compose);
    expect(apps).toHaveLength(6);
    for (const [name, s] of apps) {
      expect(s.stop_grace_period, `${name} has no stop_grace_period`).toBeDefined();
      expect(durationMs(s.stop_grace_period ?? "0s"), name).toBeGreaterThan(forcedExitMs);
    }
  });

  test("every container that compose restarts has a health check; only the one-shots do not restart", () => {
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.restart === "no") {
        // k6: a run of a load scenario (`docker compose --profile load run --rm k6 run ...`).
        expect(["check-env", "network-tools", "rabbitmq-setup", "k6"]).toContain(name);
        continue;
      }
      expect(s.restart, name).toBe("unless-stopped");
      expect(s.healthcheck?.test?.length, `${name} has no health check`).toBeGreaterThan(1);
    }
  });

  test("a relay's health check fetches the metrics port the relay is given, a service's its readiness", () => {
    for (const [name, s] of appServices(compose)) {
      const check = [s.healthcheck?.test ?? []].flat().join(" ");
      if (name.startsWith("relay-")) {
        const port = s.environment?.OUTBOX_METRICS_PORT;
        expect(port, `${name} has no OUTBOX_METRICS_PORT`).toMatch(/^\d+$/);
        expect(check).toContain(`fetch('http://127.0.0.1:${port}/metrics')`);
        // Reachable by a scraper on the compose network, not only by the health check inside.
        expect(s.environment?.OUTBOX_METRICS_HOST, `${name} listens on loopback only`).toBe("0.0.0.0");
      } else {
        const port = s.environment?.[`${name.toUpperCase()}_PORT`];
        expect(check).toContain(`fetch('http://127.0.0.1:${port}/health/ready')`);
      }
      expect(check).toContain("process.exit(r.ok?0:1)");
    }
  });

  test("PostgreSQL is healthy only once it takes TCP connections, not while first-time init runs", () => {
    // The image's init server listens on the Unix socket alone; pg_isready without a host would use it.
    const pg = composeService(compose, "postgres");
    const [form, program, ...args] = [pg.healthcheck?.test ?? []].flat();
    expect([form, program]).toEqual(["CMD", "pg_isready"]);
    const option = (short: string) => {
      const i = args.indexOf(short);
      return i >= 0 ? args[i + 1] : undefined;
    };
    expect(option("-h")).toBe("127.0.0.1");
    const containerPort = (pg.ports ?? []).map((p) => p.split(":").at(-1));
    expect(containerPort).toEqual([option("-p")]);
    expect(option("-U")).toBe(pg.environment?.POSTGRES_USER);
    expect(args.filter((a) => a.startsWith("-"))).toEqual(["-h", "-p", "-U", "-d"]);
  });

  test("each broker node and PostgreSQL keep their data in a named volume at the image's data folder", () => {
    const declared = new Set(Object.keys(compose.volumes ?? {}));
    const volumeAt = (service: string, target: string) =>
      (composeService(compose, service).volumes ?? [])
        .map((v) => v.split(":"))
        .find(([, t]) => t === target)?.[0];
    const brokerVolumes = ["rabbitmq-1", "rabbitmq-2", "rabbitmq-3"].map((n) =>
      volumeAt(n, "/var/lib/rabbitmq"),
    );
    for (const v of brokerVolumes) expect(declared).toContain(v);
    expect(new Set(brokerVolumes).size).toBe(3);
    // PostgreSQL 18+ images: PGDATA is /var/lib/postgresql/<major>/docker, the VOLUME /var/lib/postgresql.
    expect(declared).toContain(volumeAt("postgres", "/var/lib/postgresql"));
    expect(volumeAt("postgres", "/var/lib/postgresql/data")).toBeUndefined();
  });

  test("no guest: the broker's default user is ours, and no file of the broker set-up mentions guest", () => {
    for (const n of ["rabbitmq-1", "rabbitmq-2", "rabbitmq-3"])
      expect(composeService(compose, n).environment?.RABBITMQ_DEFAULT_USER).toBe(BROKER_ADMIN);
    for (const file of [
      "docker-compose.yml",
      "infra/rabbitmq/compose/rabbitmq.conf",
      "infra/rabbitmq/definitions.json",
    ])
      expect(readRepoFile(file), file).not.toMatch(/guest/i);
  });
});
