// The test suite runs without Docker, so this checks that docker-compose.yml describes the same
// system as the local stack: databases and roles, broker users, the definitions file, ports.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { appDefinitions } from "../src/apps/definitions.ts";
import { readDefinitions, repoRoot, stackLayout } from "../src/index.ts";
import { POSTGRES_SETTINGS } from "../src/postgres.ts";
import { RABBITMQ_SETTINGS } from "../src/rabbitmq.ts";
import {
  BROKER_ADMIN,
  BROKER_VHOST,
  brokerUser,
  databaseName,
  databaseRole,
  POSTGRES_ADMIN,
  SERVICE_NAMES,
} from "../src/services.ts";
import { fakeStack } from "./fake-stack.ts";

type Service = {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: unknown;
  restart?: string;
  entrypoint?: string[];
  command?: string[];
  depends_on?: Record<string, unknown>;
};
const compose = parse(fs.readFileSync(path.join(repoRoot, "docker-compose.yml"), "utf8"), {
  merge: true,
}) as {
  services: Record<string, Service>;
};
const layout = stackLayout({ stackDir: "/unused", portOffset: 0 });
const defs = readDefinitions();
const svc = (name: string): Service => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};
const hostPorts = (s: Service) => (s.ports ?? []).map((p) => Number(p.split(":").at(-2)));
const read = (rel: string) => fs.readFileSync(path.join(repoRoot, rel), "utf8");
/** `services/order/src/main.ts` -> `services/order/dist/src/main.js`: where the image's build puts it. */
const compiledEntry = (sourceEntry: string) => {
  const m = /^(.+?)\/(src\/.+)\.ts$/.exec(sourceEntry);
  if (!m) throw new Error(`${sourceEntry} is not a .ts file under a package's src/`);
  return `${m[1]}/dist/${m[2]}.js`;
};

describe("docker-compose.yml agrees with the local stack", () => {
  test("PostgreSQL: same port, admin role, and per-service databases and roles", () => {
    const pg = svc("postgres");
    expect(hostPorts(pg)).toEqual([layout.postgres.port]);
    expect(pg.environment?.POSTGRES_USER).toBe(POSTGRES_ADMIN);
    // The server settings: every `-c` of the image's command, in the local stack's order.
    const command = pg.command ?? [];
    expect(command[0]).toBe("postgres");
    expect(command.slice(1).filter((_, i) => i % 2 === 1)).toEqual([...POSTGRES_SETTINGS]);
    expect(
      command
        .slice(1)
        .filter((_, i) => i % 2 === 0)
        .every((flag) => flag === "-c"),
    ).toBe(true);
    const init = pg.volumes?.find((v) => v.includes("docker-entrypoint-initdb.d"));
    expect(init).toMatch(/^\.\/infra\/postgres\/init-databases\.sh:/);
    const script = read("infra/postgres/init-databases.sh");
    expect(script).toContain(`for svc in ${SERVICE_NAMES.join(" ")}; do`);
    for (const s of SERVICE_NAMES) {
      // The script builds names from the loop variable; check the patterns produce ours.
      expect(`orderflow_${s}`).toBe(databaseName(s));
      expect(`${s}_svc`).toBe(databaseRole(s));
      expect(pg.environment).toHaveProperty(`${s.toUpperCase()}_DB_PASSWORD`);
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: these are the shell script's own ${svc}
    expect(script).toContain("CREATE DATABASE orderflow_${svc} OWNER ${svc}_svc");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
    expect(script).toContain("REVOKE ALL ON DATABASE orderflow_${svc} FROM PUBLIC");
  });

  test("Redis: same port", () => {
    expect(hostPorts(svc("redis"))).toEqual([layout.redis.port]);
  });

  test("RabbitMQ: three nodes with the local stack's ports, health checks and restart policies", () => {
    layout.rabbitmq.nodes.forEach((n, i) => {
      const node = svc(`rabbitmq-${i + 1}`);
      expect(hostPorts(node)).toEqual([n.amqpPort, n.managementPort, n.prometheusPort]);
      expect(node.healthcheck).toBeDefined();
      expect(node.restart).toBe("unless-stopped");
      expect(node.environment?.RABBITMQ_DEFAULT_USER).toBe(BROKER_ADMIN);
      expect(node.environment?.RABBITMQ_DEFAULT_VHOST).toBe(BROKER_VHOST);
      expect(node.environment?.RABBITMQ_DEFAULT_USER).not.toBe("guest");
    });
    const conf = read("infra/rabbitmq/compose/rabbitmq.conf");
    for (let i = 1; i <= 3; i++) expect(conf).toContain(`rabbit@rabbitmq-${i}`);
    // The local nodes' tuning (RABBITMQ_SETTINGS), each line as it is.
    const lines = conf.split("\n").map((l) => l.trim());
    for (const setting of RABBITMQ_SETTINGS) expect(lines).toContain(setting);
    expect(read("infra/rabbitmq/compose/enabled_plugins")).toContain("rabbitmq_prometheus");
  });

  test("the topology comes from the ONE definitions file, imported after the cluster formed", () => {
    const setup = svc("rabbitmq-setup");
    expect(setup.volumes).toContain("./infra/rabbitmq/definitions.json:/etc/orderflow/definitions.json:ro");
    expect(Object.keys(setup.depends_on ?? {}).sort()).toEqual(["rabbitmq-1", "rabbitmq-2", "rabbitmq-3"]);
    const script = read("infra/rabbitmq/compose/setup.sh");
    expect(script.indexOf("await_online_nodes 3")).toBeLessThan(script.indexOf("import_definitions"));
    // The mount above is where setup.sh reads the file unless a test points it elsewhere.
    expect(script).toContain(`DEFINITIONS="\${SETUP_DEFINITIONS:-/etc/orderflow/definitions.json}"`);
  });

  test("broker users: one per service, no guest, each with a password variable in compose", () => {
    const users = defs.users.map((u) => u.name).sort();
    expect(users).toEqual(SERVICE_NAMES.map(brokerUser).sort());
    expect(users).not.toContain("guest");
    const env = svc("rabbitmq-setup").environment ?? {};
    for (const s of SERVICE_NAMES) expect(env).toHaveProperty(`${s.toUpperCase()}_BROKER_PASSWORD`);
    expect(read("infra/rabbitmq/compose/setup.sh")).toContain(`for svc in ${SERVICE_NAMES.join(" ")}; do`);
  });

  test("every variable compose needs is documented in .env.example", () => {
    const needed = new Set([...read("docker-compose.yml").matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]));
    const documented = read(".env.example");
    for (const v of needed) expect(documented).toMatch(new RegExp(`^${v}=`, "m"));
  });
});

describe("docker-compose.yml runs the same application processes as the local supervisor", () => {
  const apps = appDefinitions(fakeStack(layout));
  const gatewayConfig = fs.readFileSync(path.join(repoRoot, "infra/compose/gateway/haproxy.cfg"), "utf8");

  test.each(apps.map((a) => a.name))("%s", (name) => {
    const app = apps.find((a) => a.name === name);
    const composeName = name.startsWith("relay:") ? `relay-${name.slice("relay:".length)}` : name;
    const c = svc(composeName);
    expect(c.restart).toBe("unless-stopped");
    // The same entry point, compiled (the image runs dist/, the supervisor the sources through tsx), and the
    // same variables (values differ: container host names, .env passwords).
    const entry = app?.args.at(-1)?.replace(`${repoRoot}/`, "") ?? "";
    expect(c.command).toEqual(["node", "--conditions=production", compiledEntry(entry)]);
    for (const key of Object.keys(app?.env ?? {}).filter(
      (k) => k !== "LOG_LEVEL" && k !== "OUTBOX_LOG_LEVEL",
    )) {
      expect(c.environment, `${composeName} lacks ${key}`).toHaveProperty(key);
    }
    if (app?.kind === "service") {
      // No host port of its own, so `--scale` can run several: the gateway publishes the local port.
      const port = Number(new URL(app.url ?? "").port);
      expect(hostPorts(c)).toEqual([]);
      expect(hostPorts(svc("gateway"))).toContain(port);
      expect(gatewayConfig).toMatch(new RegExp(`^frontend ${name}\\n  bind :${port}$`, "m"));
      expect(gatewayConfig).toMatch(new RegExp(`^  server-template ${name}- \\d+ ${name}:${port}$`, "m"));
      expect(c.healthcheck).toBeDefined();
    } else {
      expect(c.environment?.OUTBOX_DONE_ON_CONFIRM).toBe(app?.env.OUTBOX_DONE_ON_CONFIRM);
    }
  });

  test("one image built from the repository's Dockerfile", () => {
    expect(fs.existsSync(path.join(repoRoot, "Dockerfile"))).toBe(true);
    for (const a of apps) {
      const composeName = a.name.replace("relay:", "relay-");
      expect(svc(composeName).image).toBe("orderflow-app");
    }
  });
});

describe("the definitions file", () => {
  const queues = new Map(defs.queues.map((q) => [q.name, q.arguments]));
  const workQueues = defs.queues.filter((q) => !/\.(parking|retry\.\w+)$/.test(q.name));

  test("every queue is a quorum queue", () => {
    for (const [, args] of queues) expect(args["x-queue-type"]).toBe("quorum");
  });

  test.each(workQueues.map((q) => q.name))(
    "%s dead-letters at-least-once to its parking lot and has three retry tiers back to itself",
    (name) => {
      const args = queues.get(name) ?? {};
      expect(args).toMatchObject({
        "x-delivery-limit": expect.any(Number),
        "x-dead-letter-exchange": "orderflow.parking",
        "x-dead-letter-routing-key": `${name}.parking`,
        "x-dead-letter-strategy": "at-least-once",
        "x-overflow": "reject-publish",
      });
      expect(queues.has(`${name}.parking`)).toBe(true);
      for (const tier of ["1s", "5s", "30s"]) {
        // The retry queue expires back into the work queue, never into a cycle through the parking lot.
        expect(queues.get(`${name}.retry.${tier}`)).toMatchObject({
          "x-message-ttl": expect.any(Number),
          "x-dead-letter-exchange": "",
          "x-dead-letter-routing-key": name,
          "x-dead-letter-strategy": "at-least-once",
        });
      }
    },
  );

  test("service users cannot configure anything and read only their own work queue", () => {
    for (const p of defs.permissions) {
      expect(p.configure).toBe("^$");
      const readable = workQueues.map((q) => q.name).filter((q) => new RegExp(p.read).test(q));
      expect(readable).toHaveLength(1);
      expect(new RegExp(p.read).test(`${readable[0]}.parking`)).toBe(false);
    }
  });
});
