// `pnpm compose <up|down|status|logs>`: docker-compose.yml for a Docker user, on a machine with Docker Hub
// (it only runs `docker compose`) or without it (images built here from Debian packages).
import { parseCli } from "@orderflow/config";
import { repoRoot } from "../env.ts";
import { openContext } from "./context.ts";
import { EnvFileError, readEnvFile } from "./dotenv.ts";
import { down, stopEngine } from "./down.ts";
import { NoEngineError } from "./engine.ts";
import { readComposeEnv } from "./env.ts";
import { composeLayout } from "./layout.ts";
import { logs } from "./logs.ts";
import { PortInUseError } from "./ports.ts";
import { readProject, requiredVariables } from "./project.ts";
import { carryOrder, recordOrder, verifyOrders } from "./saga.ts";
import { parseScale } from "./scale.ts";
import { composeStatus, serviceUrls } from "./status.ts";
import { NotHealthyError, up } from "./up.ts";

const USAGE = `usage: pnpm compose <command>
  up [--build] [--timeout SECONDS] [--scale SERVICE=N ...]
                   start the core services of docker-compose.yml (no monitoring) and wait until every
                   long-running container is healthy (default 900 s, cold builds included). Finds a
                   Docker engine or, as root on Debian, starts its own; images that cannot be pulled
                   are built here from Debian packages. --build: rebuild the app and control images.
                   --scale order=2 --scale relay-order=2: N containers of a service or relay (1..8),
                   behind the gateway's one entry point; an \`up\` without it runs one of each again
  down [--volumes] [--engine]
                   remove the project's containers and network (--volumes: its data too);
                   --engine: then stop the engine pnpm compose started (never another)
  status [--json]  each container's service, state and health, the engine, URLs and the control token
  saga [--record FILE] [--verify FILE]
                   carry one order through the saga (stock, order, CONFIRMED with its points) and
                   append it to FILE; --verify: every order FILE records still reads as it did
  logs [service] [-n N] [-f]
                   last N (50) lines of every container's log, or of one service's; -f: follow
Environment: DOCKER_HOST, ORDERFLOW_COMPOSE_DIR, ORDERFLOW_COMPOSE_PORT_OFFSET (.env.example)`;

const log = (m: string) => process.stderr.write(`[compose] ${m}\n`);

const VERBS = ["up", "down", "status", "saga", "logs"];

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv[0] === "--" ? argv.slice(1) : argv;
  if (verb === undefined || verb === "--help" || verb === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return verb === undefined ? 2 : 0;
  }
  if (!VERBS.includes(verb)) {
    process.stderr.write(`error: unknown command "${verb}" (one of: ${VERBS.join(", ")})\n\n${USAGE}\n`);
    return 2;
  }
  const env = readComposeEnv();
  const required = requiredVariables(readProject(repoRoot));

  switch (verb) {
    case "up": {
      const { values, fail } = parseCli(
        {
          usage: USAGE,
          options: {
            build: { type: "boolean" },
            timeout: { type: "string" },
            scale: { type: "string", multiple: true },
          },
        },
        rest,
      );
      const scale = parseScale(values.scale ?? [], readProject(repoRoot), fail);
      const timeoutS = Number(values.timeout ?? 900);
      if (!Number.isInteger(timeoutS) || timeoutS < 10 || timeoutS > 7200) {
        process.stderr.write(
          `error: --timeout must be a whole number of seconds from 10 to 7200\n\n${USAGE}\n`,
        );
        return 2;
      }
      const dotenv = readEnvFile(repoRoot, required);
      const ctx = await openContext(env, log, { start: true });
      log(`engine ${ctx.engine.host} (${ctx.engine.kind})`);
      const { seconds, status } = await up(ctx, dotenv, {
        rebuild: values.build === true,
        timeoutS,
        scale,
      });
      log(`healthy in ${seconds.toFixed(1)} s`);
      for (const [name, url] of Object.entries(status.urls))
        process.stdout.write(`${name.padEnd(10)} ${url}\n`);
      return 0;
    }
    case "down": {
      const { values } = parseCli(
        { usage: USAGE, options: { volumes: { type: "boolean" }, engine: { type: "boolean" } } },
        rest,
      );
      const layout = composeLayout(env.composeDir);
      let ctx: Awaited<ReturnType<typeof openContext>> | undefined;
      try {
        ctx = await openContext(env, log, { start: false });
      } catch (e) {
        if (!(e instanceof NoEngineError)) throw e;
        log("no Docker engine runs: no containers to remove");
      }
      if (ctx) {
        readEnvFile(repoRoot, required);
        await down(ctx, { volumes: values.volumes === true });
      }
      if (values.engine) await stopEngine(ctx, layout, log);
      return 0;
    }
    case "status": {
      const { values } = parseCli({ usage: USAGE, options: { json: { type: "boolean" } } }, rest);
      const dotenv = readEnvFile(repoRoot, required);
      const ctx = await openContext(env, log, { start: false });
      const status = await composeStatus(ctx, dotenv);
      if (values.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      else {
        process.stdout.write(`engine  ${status.engine.host} (${status.engine.kind})\n`);
        for (const c of status.containers)
          process.stdout.write(
            `${c.service.padEnd(16)} ${c.state.padEnd(10)} ${c.health}${c.state === "exited" ? ` (exit ${c.exitCode})` : ""}\n`,
          );
        for (const [name, url] of Object.entries(status.urls))
          process.stdout.write(`${name.padEnd(16)} ${url}\n`);
        for (const p of status.problems) process.stdout.write(`not ready: ${p}\n`);
      }
      return status.healthy ? 0 : 1;
    }
    case "saga": {
      const { values } = parseCli(
        { usage: USAGE, options: { record: { type: "string" }, verify: { type: "string" } } },
        rest,
      );
      readEnvFile(repoRoot, required);
      const ctx = await openContext(env, log, { start: false });
      const urls = serviceUrls(ctx) as { order: string; inventory: string };
      if (values.verify !== undefined) {
        const wrong = await verifyOrders(urls, values.verify);
        for (const w of wrong) process.stderr.write(`error: ${w}\n`);
        if (wrong.length === 0) process.stdout.write(`every order of ${values.verify} reads as recorded\n`);
        return wrong.length === 0 ? 0 : 1;
      }
      const t0 = Date.now();
      const order = await carryOrder(urls);
      if (values.record !== undefined) recordOrder(values.record, order);
      process.stdout.write(
        `order ${order.id} ${order.status} with ${order.pointsGranted} points in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
      );
      return 0;
    }
    default: {
      const p = parseCli(
        {
          usage: USAGE,
          options: { lines: { type: "string", short: "n" }, follow: { type: "boolean", short: "f" } },
          positionals: { max: 1 },
        },
        rest,
      );
      const tail = p.check(() => {
        const n = Number(p.values.lines ?? 50);
        if (!Number.isInteger(n) || n < 1) throw new Error("-n must be a whole number above 0");
        return n;
      });
      const service = p.positionals[0];
      const dotenv = readProject(repoRoot);
      if (service && !(service in dotenv.services))
        p.fail(`unknown service "${service}" (one of: ${Object.keys(dotenv.services).join(", ")})`);
      readEnvFile(repoRoot, required);
      const ctx = await openContext(env, log, { start: false });
      return logs(ctx, service, tail, p.values.follow === true);
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const known =
      e instanceof EnvFileError ||
      e instanceof NoEngineError ||
      e instanceof NotHealthyError ||
      e instanceof PortInUseError;
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    if (!known && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    process.exitCode = 1;
  },
);
