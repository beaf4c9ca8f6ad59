// `pnpm compose` and `pnpm env:init` without an engine: what they refuse and why (a bad .env, a port in
// use, an unknown verb, no engine and no root), the .env they write, and the override file that swaps
// images and nothing else.
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { EnvFileError, parseDotenv, readEnvFile, variableProblem } from "../src/compose/dotenv.ts";
import { findOrStartEngine, NoEngineError, SYSTEM_SOCKET } from "../src/compose/engine.ts";
import { initEnvFile } from "../src/compose/env-init.ts";
import { composeLayout } from "../src/compose/layout.ts";
import { overrideText } from "../src/compose/override.ts";
import { busyPorts, hostPortsOf, portInUse, withOffset } from "../src/compose/ports.ts";
import {
  coreServices,
  MONITORING_PROFILE,
  profileServices,
  publishedPorts,
  readProject,
  requiredVariables,
} from "../src/compose/project.ts";
import { MAX_SCALE, parseScale, scaleArgs } from "../src/compose/scale.ts";
import { repoRoot } from "../src/index.ts";

const run = promisify(execFile);
const project = readProject(repoRoot);
const required = requiredVariables(project);

const dirs: string[] = [];
function tempRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compose-cli-test-"));
  dirs.push(dir);
  fs.copyFileSync(path.join(repoRoot, "docker-compose.yml"), path.join(dir, "docker-compose.yml"));
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("pnpm env:init", () => {
  test("writes every variable docker-compose.yml requires, each accepted by check-env's own script", () => {
    const root = tempRoot();
    initEnvFile(root);
    const values = parseDotenv(fs.readFileSync(path.join(root, ".env"), "utf8"));
    expect(Object.keys(values).sort()).toEqual([...required].sort());
    expect(required.flatMap((n) => variableProblem(n, values[n]) ?? [])).toEqual([]);
    // check-secrets.sh is what the check-env container runs on them (ADMIN_TOKEN is not its business).
    const secrets = required.filter((n) => n !== "ADMIN_TOKEN");
    const out = execFileSync("bash", [path.join(repoRoot, "infra/compose/check-secrets.sh"), ...secrets], {
      env: { PATH: process.env.PATH, ...values },
      encoding: "utf8",
    });
    expect(out).toContain(`${secrets.length} secrets ok`);
    // Secrets differ from one another, and the file is its owner's only.
    expect(new Set(Object.values(values)).size).toBe(required.length);
    expect(fs.statSync(path.join(root, ".env")).mode & 0o077).toBe(0);
  });

  test("refuses to overwrite an existing .env and leaves it as it was", () => {
    const root = tempRoot();
    fs.writeFileSync(path.join(root, ".env"), "KEEP=me\n");
    expect(() => initEnvFile(root)).toThrow(/exists already/);
    expect(fs.readFileSync(path.join(root, ".env"), "utf8")).toBe("KEEP=me\n");
  });
});

describe("the .env check", () => {
  test("a missing .env says how to make one", () => {
    expect(() => readEnvFile(tempRoot(), required)).toThrow(/pnpm env:init/);
  });

  test("names each missing or invalid variable, and only those", () => {
    const root = tempRoot();
    initEnvFile(root);
    const file = path.join(root, ".env");
    const text = fs
      .readFileSync(file, "utf8")
      .replace(/^REDIS_PASSWORD=.*$/m, "REDIS_PASSWORD=has@at/and:colon1234")
      .replace(/^CONTROL_TOKEN=.*$/m, "");
    fs.writeFileSync(file, text);
    let message = "";
    try {
      readEnvFile(root, required);
    } catch (e) {
      expect(e).toBeInstanceOf(EnvFileError);
      message = (e as Error).message;
    }
    expect(message).toMatch(/REDIS_PASSWORD must be/);
    expect(message).toMatch(/CONTROL_TOKEN is empty or not set/);
    expect(message).not.toMatch(/POSTGRES_ADMIN_PASSWORD/);
  });

  test("reads quoted values and skips comments", () => {
    expect(parseDotenv("# c\nA='x y'\nexport B=\"z\"\n\nC=1=2\n")).toEqual({ A: "x y", B: "z", C: "1=2" });
  });
});

describe("the override file", () => {
  const services = coreServices(project);
  const ports = publishedPorts(project, services);

  test("swaps only the image of the services given, with no offset and the system socket", () => {
    const text = overrideText({
      images: {
        postgres: "orderflow-local/postgres:17-trixie",
        "rabbitmq-1": "orderflow-local/rabbitmq:4.0-trixie",
      },
      ports,
      portOffset: 0,
      socketServices: ["control"],
    });
    expect(parse(text)).toEqual({
      services: {
        postgres: { image: "orderflow-local/postgres:17-trixie" },
        "rabbitmq-1": { image: "orderflow-local/rabbitmq:4.0-trixie" },
      },
    });
  });

  test("with an offset, replaces each published port list (!override) with the moved ports", () => {
    const moved = ports.map((p) => withOffset(p, 5000));
    const text = overrideText({ images: {}, ports: moved, portOffset: 5000, socketServices: [] });
    expect(text).toMatch(/^ {4}ports: !override$/m);
    expect(text).toContain('"127.0.0.1:22432:5432"');
    expect(text).toContain('"127.0.0.1:8001:3001"');
    expect(text).not.toContain('"127.0.0.1:17432:5432"');
  });

  test("mounts an engine's own socket where the control service expects /var/run/docker.sock", () => {
    const text = overrideText({
      images: {},
      ports,
      portOffset: 0,
      engineSocket: "/srv/engine/docker.sock",
      socketServices: ["control"],
    });
    expect(parse(text)).toEqual({
      services: { control: { volumes: ["/srv/engine/docker.sock:/var/run/docker.sock:ro"] } },
    });
  });

  test("the core services boot without monitoring, and every long-running one has a health check", () => {
    expect(services).toEqual(
      expect.arrayContaining(["postgres", "rabbitmq-3", "order", "relay-points", "control"]),
    );
    // The monitoring profile and k6's are read from the file, not listed here.
    expect(profileServices(project, MONITORING_PROFILE)).toContain("prometheus");
    expect(services).not.toContain("prometheus");
    expect(services).not.toContain("jaeger");
    expect(services).not.toContain("k6");
    const unchecked = services.filter(
      (s) => project.services[s]?.restart !== "no" && !project.services[s]?.healthcheck,
    );
    expect(unchecked).toEqual([]);
  });
});

describe("ports", () => {
  test("a port another program listens on is reported; one of the project's own is not", async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as net.AddressInfo).port;
    try {
      expect(await portInUse("127.0.0.1", port)).toBe(true);
      const p = { service: "order", host: "127.0.0.1", published: port, target: 3001 };
      expect(await busyPorts([p], new Set())).toEqual([p]);
      expect(await busyPorts([p], new Set([port]))).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await portInUse("127.0.0.1", port)).toBe(false);
  });
});

describe("pnpm compose, refusals", () => {
  const cli = path.join(repoRoot, "infra/src/compose/cli.ts");
  const tsx = path.join(repoRoot, "node_modules/.bin/tsx");

  test("an unknown verb exits 2 naming it and the verbs", async () => {
    const err = await run(tsx, [cli, "upp"], { cwd: repoRoot }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toMatch(
      /unknown command "upp" \(one of: up, down, status, saga, logs\)/,
    );
  });

  test("a bad flag exits 2 with the usage", async () => {
    const err = await run(tsx, [cli, "down", "--volume"], { cwd: repoRoot }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toMatch(/usage: pnpm compose/);
  });

  test.skipIf(fs.existsSync(SYSTEM_SOCKET))("no engine and no root: says how to get one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compose-engine-test-"));
    dirs.push(dir);
    const attempt = findOrStartEngine(
      {
        dockerHost: undefined,
        composeDir: dir,
        portOffset: 0,
        isRoot: false,
        extraCaCerts: undefined,
        inherited: process.env,
      },
      composeLayout(dir),
      () => {},
    );
    await expect(attempt).rejects.toThrow(NoEngineError);
    await expect(attempt).rejects.toThrow(/only root can start one/);
  });

  test("a DOCKER_HOST that does not answer is named", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compose-engine-test-"));
    dirs.push(dir);
    const host = `unix://${path.join(dir, "absent.sock")}`;
    const attempt = findOrStartEngine(
      {
        dockerHost: host,
        composeDir: dir,
        portOffset: 0,
        isRoot: true,
        extraCaCerts: undefined,
        inherited: process.env,
      },
      composeLayout(dir),
      () => {},
    );
    await expect(attempt).rejects.toThrow(`DOCKER_HOST=${host} does not answer`);
  });
});

describe("--scale", () => {
  const fail = (m: string): never => {
    throw new Error(m);
  };

  test("takes services that publish no host port, up to the gateway's slots, as compose's flags", () => {
    const scale = parseScale(["order=2", "relay-order=3"], project, fail);
    expect(scale).toEqual({ order: 2, "relay-order": 3 });
    expect(scaleArgs(scale)).toEqual(["--scale", "order=2", "--scale", "relay-order=3"]);
  });

  test("refuses a service with a host port, an unknown one, a bad count and a malformed flag", () => {
    expect(() => parseScale(["postgres=2"], project, fail)).toThrow(/publishes a host port/);
    expect(() => parseScale(["ordr=2"], project, fail)).toThrow(/no service "ordr"/);
    expect(() => parseScale([`order=${MAX_SCALE + 1}`], project, fail)).toThrow(/from 1 to 8/);
    expect(() => parseScale(["order=0"], project, fail)).toThrow(/from 1 to 8/);
    expect(() => parseScale(["order"], project, fail)).toThrow(/SERVICE=N/);
  });
});

test("the host ports of docker ps, ranges included, count as the project's own on a warm up", () => {
  const ps = "127.0.0.1:3001-3003->3001-3003/tcp\n127.0.0.1:17432->5432/tcp\n\n5672/tcp";
  expect([...hostPortsOf(ps)].sort()).toEqual([17432, 3001, 3002, 3003]);
});
