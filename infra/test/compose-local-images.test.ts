// Where an official image cannot be pulled, `pnpm compose up` runs a local one built from Debian packages
// (infra/compose/images/<name>/). This lists what docker-compose.yml hands each official image (its
// environment, mounts, command, host name and health check) and checks that the local image's Dockerfile
// and entry point honour it. No engine is needed: the contract is read from the files.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { imagesDir, LOCAL_IMAGES, localImageFor } from "../src/compose/local-images.ts";
import { repoRoot } from "../src/index.ts";
import { type ComposeService, readCompose, readRepoFile } from "./compose-file.ts";

const compose = readCompose();

interface Handed {
  service: string;
  official: string;
  folder: string;
  def: ComposeService & { hostname?: string };
}

/** Every service of docker-compose.yml that runs an image with a local stand-in. */
const handed: Handed[] = Object.entries(compose.services).flatMap(([service, def]) => {
  const local = def.image ? localImageFor(def.image) : undefined;
  return local && def.build === undefined
    ? [{ service, official: def.image as string, folder: local.folder, def: def as Handed["def"] }]
    : [];
});

const file = (folder: string, name: string): string => {
  const p = path.join(imagesDir(repoRoot), folder, name);
  return fs.existsSync(p) ? fs.readFileSync(p, "utf8") : "";
};
const dockerfile = (folder: string) => file(folder, "Dockerfile");
const entrypoint = (folder: string) => file(folder, "docker-entrypoint.sh");
/** Dockerfile and entry point without their comments: what runs, not what is said about it. */
const code = (folder: string) =>
  `${dockerfile(folder)}\n${entrypoint(folder)}`
    .split("\n")
    .filter((l) => !/^\s*#/.test(l))
    .join("\n");

/**
 * The variables each official image documents, and how the stand-in honours them: its entry point acts on
 * them, or the server reads them itself (RabbitMQ since 3.9; the official entry point no longer does).
 */
const IMAGE_VARIABLES: Record<string, { documented: string[]; byEntrypoint: string[]; byServer: string[] }> =
  {
    postgres: {
      documented: [
        "POSTGRES_USER",
        "POSTGRES_PASSWORD",
        "POSTGRES_DB",
        "POSTGRES_INITDB_ARGS",
        "POSTGRES_INITDB_WALDIR",
        "POSTGRES_HOST_AUTH_METHOD",
        "PGDATA",
      ],
      byEntrypoint: ["POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "POSTGRES_INITDB_ARGS", "PGDATA"],
      byServer: [],
    },
    rabbitmq: {
      documented: [
        "RABBITMQ_DEFAULT_USER",
        "RABBITMQ_DEFAULT_PASS",
        "RABBITMQ_DEFAULT_VHOST",
        "RABBITMQ_ERLANG_COOKIE",
        "RABBITMQ_NODENAME",
        "RABBITMQ_USE_LONGNAME",
      ],
      // Written to the cookie file as well, so that root's CLI calls agree with the node.
      byEntrypoint: ["RABBITMQ_ERLANG_COOKIE"],
      byServer: [
        "RABBITMQ_DEFAULT_USER",
        "RABBITMQ_DEFAULT_PASS",
        "RABBITMQ_DEFAULT_VHOST",
        "RABBITMQ_ERLANG_COOKIE",
      ],
    },
    redis: { documented: [], byEntrypoint: [], byServer: [] },
    haproxy: { documented: [], byEntrypoint: [], byServer: [] },
    bash: { documented: [], byEntrypoint: [], byServer: [] },
    busybox: { documented: [], byEntrypoint: [], byServer: [] },
  };

/** The text of the repository's files a service mounts, and of its health check and command. */
function serviceReaders(def: ComposeService): string {
  const mounted = (def.volumes ?? [])
    .map((v) => v.split(":")[0] ?? "")
    .filter((src) => src.startsWith("./") && fs.statSync(path.join(repoRoot, src)).isFile())
    .map((src) => readRepoFile(src));
  return [...mounted, JSON.stringify(def.healthcheck ?? {}), JSON.stringify(def.command ?? [])].join("\n");
}

/** Debian packages that provide each program the health checks, commands and entry points call. */
const PROGRAM_PACKAGE: Record<string, string> = {
  pg_isready: "postgresql-",
  postgres: "postgresql-",
  psql: "postgresql-",
  "redis-server": "redis-server",
  "redis-cli": "redis-tools",
  haproxy: "haproxy",
  "rabbitmq-diagnostics": "rabbitmq-server",
  rabbitmqctl: "rabbitmq-server",
  "rabbitmq-server": "rabbitmq-server",
};
/** In every Debian minbase root filesystem. */
const BASE_PROGRAMS = new Set(["bash", "sh", "grep", "timeout", "sha256sum", "setpriv", "find", "chown"]);

/** The programs a health check runs: CMD's first word, or each command of a CMD-SHELL line. */
function healthPrograms(test: string[] | string | undefined): string[] {
  if (!test) return [];
  const [kind, ...rest] = Array.isArray(test) ? test : ["CMD-SHELL", test];
  if (kind === "CMD") return rest.slice(0, 1);
  return (rest.join(" ") ?? "")
    .split(/\||&&|;/)
    .map((part) => part.trim().replace(/^([A-Z_]+=("[^"]*"|\S+)\s+)+/, ""))
    .map((part) => part.split(/\s+/)[0] ?? "")
    .filter(Boolean);
}

describe("local stand-ins for the official images", () => {
  test("every official image of docker-compose.yml that a local image stands in for is found", () => {
    expect(new Set(handed.map((h) => h.folder))).toEqual(new Set(LOCAL_IMAGES.map((l) => l.folder)));
    expect(handed.map((h) => h.service)).toEqual(
      expect.arrayContaining(["check-env", "postgres", "redis", "rabbitmq-1", "rabbitmq-setup"]),
    );
  });

  test.each(LOCAL_IMAGES.map((l) => [l.folder, l]))(
    "%s: builds FROM the imported Debian base",
    (folder, l) => {
      const text = dockerfile(folder);
      expect(text).toMatch(new RegExp(`^ARG BASE=orderflow-local/debian:${l.release}$`, "m"));
      expect(text).toMatch(/^FROM \$\{BASE\}$/m);
      expect(text).toMatch(new RegExp(`^LABEL dev\\.orderflow\\.compose\\.local-image="${folder}"$`, "m"));
    },
  );

  test.each(handed.map((h) => [h.service, h]))(
    "%s: the image's variables it is handed are acted on",
    (_s, h) => {
      const known = IMAGE_VARIABLES[h.folder];
      expect(known).toBeDefined();
      const names = Object.keys(h.def.environment ?? {});
      const imageVariables = names.filter((n) => known?.documented.includes(n));
      // An official image's variable that the stand-in does not act on would be silently ignored.
      expect(
        imageVariables.filter((n) => !known?.byEntrypoint.includes(n) && !known?.byServer.includes(n)),
      ).toEqual([]);
      for (const n of known?.byEntrypoint ?? [])
        expect(entrypoint(h.folder)).toMatch(new RegExp(`\\$\\{?${n}\\b`));
      // Every other variable is for the project's own scripts, health check or command: none expects the image.
      const readers = serviceReaders(h.def);
      expect(names.filter((n) => !imageVariables.includes(n) && !readers.includes(n))).toEqual([]);
      // Nothing clears the environment the init scripts and the server read.
      expect(code(h.folder)).not.toMatch(/env -i|--reset-env|\bunset\b/);
    },
  );

  test.each(handed.map((h) => [h.service, h]))(
    "%s: every mounted path is where the image reads it",
    (_s, h) => {
      const mounts = (h.def.volumes ?? []).map((v) => v.split(":")[1] ?? "");
      for (const target of mounts) {
        // The project's own scripts, read by its own entry points (check-secrets.sh, setup.sh).
        if (target.startsWith("/etc/orderflow/")) continue;
        if (target.startsWith("/docker-entrypoint-initdb.d/")) {
          expect(entrypoint(h.folder)).toContain("for f in /docker-entrypoint-initdb.d/*");
          expect(entrypoint(h.folder)).toMatch(/\*\.sh\)/);
        } else if (target === "/usr/local/etc/haproxy/haproxy.cfg") {
          // The official image's configuration path; the stand-in's command reads it there.
          expect(h.folder).toBe("haproxy");
          expect(h.def.command).toEqual(expect.arrayContaining(["-f", target]));
        } else if (target.startsWith("/etc/rabbitmq/")) {
          // Debian's RabbitMQ reads /etc/rabbitmq/rabbitmq.conf and enabled_plugins; nothing moves them.
          expect(h.folder).toBe("rabbitmq");
          expect(code(h.folder)).not.toMatch(/RABBITMQ_(CONFIG_FILE|ENABLED_PLUGINS_FILE|CONF_ENV_FILE)/);
        } else {
          // A data volume: the image declares it and hands it to the server's user on a fresh volume.
          expect(dockerfile(h.folder)).toMatch(new RegExp(`^VOLUME ${target}$`, "m"));
          expect(entrypoint(h.folder)).toMatch(new RegExp(`(find|chown)[^\\n]*(${target}|PGDATA)`));
        }
      }
    },
  );

  test.each(handed.map((h) => [h.service, h]))(
    "%s: its command, entry point and health check exist",
    (_s, h) => {
      const programs = [
        ...healthPrograms(h.def.healthcheck?.test),
        // The command's first word is a program unless an entry point of the file's own takes it as arguments.
        ...(h.def.entrypoint ?? h.def.command ?? []).slice(0, 1),
      ];
      expect(programs.length).toBeGreaterThan(0);
      for (const program of programs) {
        if (BASE_PROGRAMS.has(program)) continue;
        const pkg = PROGRAM_PACKAGE[program];
        expect(pkg, `${program}: which Debian package provides it?`).toBeDefined();
        expect(dockerfile(h.folder)).toMatch(new RegExp(`apt-get install[^\\n]*${pkg}`));
      }
      // `postgres -c ...` and `redis-server ...` are the server, run as its own user by the entry point.
      const command = h.def.command?.[0];
      if (command === "postgres" || command === "redis-server")
        expect(entrypoint(h.folder)).toMatch(
          new RegExp(`"\\$\\{1:-\\}" [!=]= ${command}\\b[\\s\\S]*setpriv --reuid=`),
        );
    },
  );

  test("a broker node is named rabbit@<its host name>, as rabbitmq.conf lists its peers", () => {
    const nodes = handed.filter((h) => h.def.hostname);
    expect(nodes.map((h) => h.def.hostname)).toEqual(["rabbitmq-1", "rabbitmq-2", "rabbitmq-3"]);
    const conf = readRepoFile("infra/rabbitmq/compose/rabbitmq.conf");
    for (const h of nodes) expect(conf).toContain(`= rabbit@${h.def.hostname}`);
    // The default node name (rabbit@<short host name>) stays: nothing sets another.
    expect(code("rabbitmq")).not.toMatch(/RABBITMQ_NODENAME|RABBITMQ_USE_LONGNAME/);
  });

  test("root's CLI calls (health check, rabbitmq-setup) reach the node with its cookie", () => {
    const text = code("rabbitmq");
    expect(text).toMatch(/ln -sf \/var\/lib\/rabbitmq\/\.erlang\.cookie \/root\/\.erlang\.cookie/);
    // RabbitMQ's own scripts, not Debian's wrappers that switch user and lose root's environment.
    expect(text).toMatch(/^ENV PATH=\/usr\/lib\/rabbitmq\/bin:\$PATH$/m);
  });

  test("PostgreSQL keeps the official layout: PGDATA inside the volume, one folder per major", () => {
    const text = dockerfile("postgres");
    expect(text).toMatch(/^ENV PGDATA=\/var\/lib\/postgresql\/\$\{PG_MAJOR\}\/docker$/m);
    // The health check goes over TCP: during initialisation the server listens on its socket only.
    expect(entrypoint("postgres")).toContain("listen_addresses=''");
    expect(entrypoint("postgres")).toContain("listen_addresses = '*'");
  });
});
