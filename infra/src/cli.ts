// `pnpm stack <up|down|status|logs|smoke|chaos|redrive>`: the local stack's command line.
import type { ParseArgsConfig } from "node:util";
import { exitWithUsage, parseCli } from "@orderflow/config";
import { readInfraEnv } from "./env.ts";
import { runLabChaos } from "./lab-chaos.ts";
import { MAX_REPLICAS, stackLayout } from "./layout.ts";
import { followFiles, printLastLines, stackLogFiles } from "./log-files.ts";
import { openStack } from "./open-stack.ts";
import { smoke } from "./smoke.ts";
import { down, stackStatus, up } from "./stack.ts";

const USAGE = `usage: pnpm stack <command>
  up [--no-apps] [--netns] [--replicas N]
                        start PostgreSQL, Redis, the 3-node RabbitMQ cluster, Prometheus, Alertmanager
                        and the PostgreSQL/Redis exporters, then the services and their relays
                        (supervised, restarted when they die), then the control service (fault
                        API and live console, kept running by its own keeper); returns when healthy.
                        --netns (root): each broker node in a network namespace of its own, on a
                        bridge, so \`chaos partition\` can cut the links between nodes; kept until down
                        --replicas N (1..4): N instances of each service and of each relay, named
                        order, order#2, ..., relay:order, relay:order#2, ... (the apps restart when N
                        differs from what runs; without it, what runs keeps its count)
  down                  stop everything the stack started (epmd, namespaces and links included)
  status [--json]       health, URLs, ports and PIDs of every part
  smoke                 one trip through every part, as the services use them
  logs [part] [-n N] [-f]
                        last N (50) log lines of every part, or of one: postgres, redis, epmd,
                        rabbit-1..3, prometheus, alertmanager, postgres-exporter, redis-exporter,
                        supervisor, order, inventory, points, relay:<service> (and each replica:
                        order#2, relay:order#2, ...), control;
                        -f, --follow: then print lines as they are written, until Ctrl-C
  redrive <queue> [--id MESSAGE_ID ...]
                        move parked messages of <queue> (all, or those ids) back to it
  chaos <action> [target] [--for SECONDS]
                        fault injection (--for: undo it after that long, 1..600 s, and wait for that;
                        Ctrl-C undoes it at once); the control service's POST /faults does the same.
                        The fault lab (lab/) owns the actions: \`pnpm stack chaos --help\` lists them`;

const log = (m: string) => process.stderr.write(`[stack] ${m}\n`);

/** The arguments of a command, checked: any bad flag, value or argument exits 2 with the usage. */
function args<const O extends NonNullable<ParseArgsConfig["options"]>>(
  rest: string[],
  options: O,
  positionals: { min?: number; max?: number } = {},
) {
  return parseCli({ usage: USAGE, options, positionals }, rest);
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv[0] === "--" ? argv.slice(1) : argv;
  switch (cmd) {
    case "up": {
      const { values, fail } = args(rest, {
        "no-apps": { type: "boolean" },
        netns: { type: "boolean" },
        replicas: { type: "string" },
      });
      const replicas = values.replicas === undefined ? undefined : Number(values.replicas);
      if (
        replicas !== undefined &&
        !(Number.isInteger(replicas) && replicas >= 1 && replicas <= MAX_REPLICAS)
      )
        fail(`--replicas must be a whole number from 1 to ${MAX_REPLICAS}, got "${values.replicas}"`);
      const { seconds, status } = await up(log, {
        apps: !values["no-apps"],
        netns: values.netns ?? false,
        ...(replicas !== undefined ? { replicas } : {}),
      });
      log(`healthy in ${seconds.toFixed(1)} s`);
      printSummary(status);
      return 0;
    }
    case "down":
      args(rest, {});
      await down();
      log("stopped");
      return 0;
    case "status": {
      const { values } = args(rest, { json: { type: "boolean" } });
      const status = await stackStatus();
      if (values.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      else printSummary(status);
      return status.healthy ? 0 : 1;
    }
    case "smoke": {
      args(rest, {});
      const steps = await smoke(openStack(readInfraEnv(), false));
      for (const st of steps)
        process.stdout.write(
          `${st.ok ? "ok  " : "FAIL"} ${st.step} (${st.ms} ms)${st.error ? `: ${st.error}` : ""}\n`,
        );
      const ok = steps.every((st) => st.ok);
      process.stdout.write(ok ? "smoke check passed\n" : "smoke check FAILED\n");
      return ok ? 0 : 1;
    }
    case "logs":
      return logs(rest);
    case "chaos":
      return runLabChaos(rest);
    case "redrive": {
      const { values, positionals, fail } = args(
        rest,
        { id: { type: "string", multiple: true } },
        { max: 1 },
      );
      const queue = positionals[0];
      if (!queue) return fail("redrive needs a <queue>");
      const { redriveParked } = await import("./redrive.ts");
      return redriveParked(openStack(readInfraEnv(), false), queue, values.id ?? []);
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stderr.write(`${USAGE}\n`);
      return 0;
    default:
      return exitWithUsage(`unknown command "${cmd}"`, USAGE);
  }
}

function logs(rest: string[]): Promise<number> | number {
  const { values, positionals, fail } = args(
    rest,
    { n: { type: "string", short: "n" }, follow: { type: "boolean", short: "f" } },
    { max: 1 },
  );
  const lines = values.n === undefined ? 50 : Number(values.n);
  if (!Number.isInteger(lines) || lines < 1) fail(`-n must be a whole number of lines, got "${values.n}"`);
  const files = stackLogFiles(stackLayout(readInfraEnv()));
  const part = positionals[0];
  if (part !== undefined && !files[part])
    fail(`unknown part "${part}"; parts: ${Object.keys(files).join(", ")}`);
  const chosen = part ? { [part]: files[part] as string } : files;
  const write = (s: string) => process.stdout.write(s);
  printLastLines(chosen, lines, write);
  if (!values.follow) return 0;
  const stop = followFiles(chosen, write);
  return new Promise((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const)
      process.once(sig, () => {
        stop();
        resolve(0);
      });
  });
}

function printSummary(s: Awaited<ReturnType<typeof stackStatus>>): void {
  const lines = [
    `healthy: ${s.healthy}${s.problems.length ? `  (${s.problems.join("; ")})` : ""}`,
    `postgres   ${s.postgres.healthy ? "up  " : "DOWN"} 127.0.0.1:${s.postgres.port}  pid ${s.postgres.pid ?? "-"}  databases ${Object.values(
      s.postgres.databases,
    )
      .map((d) => d.name)
      .join(", ")}`,
    // The summary shows no secret (the URL carries Redis' password): --json has the full details.
    `redis      ${s.redis.healthy ? "up  " : "DOWN"} 127.0.0.1:${s.redis.port}  pid ${s.redis.pid ?? "-"}`,
    ...s.rabbitmq.nodes.map(
      (n) =>
        `${n.name.padEnd(18)} ${n.running ? "up  " : "DOWN"} amqp ${n.amqpUrl.replace(/^.*@/, "").replace(/\/.*$/, "")}  management :${n.managementPort}  pid ${n.pid ?? "-"}`,
    ),
    ...(
      [
        ["prometheus", s.prometheus],
        ["alertmanager", s.alertmanager],
        ["postgres-exporter", s.exporters.postgres],
        ["redis-exporter", s.exporters.redis],
      ] as const
    ).map(([name, m]) => `${name.padEnd(18)} ${m.healthy ? "up  " : "DOWN"} ${m.url}  pid ${m.pid ?? "-"}`),
    ...s.services.map(
      (a) =>
        `${a.name.padEnd(18)} ${a.healthy ? "up  " : "DOWN"} ${a.url ?? ""}  pid ${a.pid ?? "-"}  restarts ${a.restarts}` +
        (a.held ? `  held (\`pnpm stack chaos start ${a.name}\` lets it run)` : ""),
    ),
    // Its token is a secret: --json has it.
    `control            ${s.control.healthy ? "up  " : "DOWN"} ${s.control.url}  pid ${s.control.pid ?? "-"}  (console and fault API)`,
    `queues     ${s.rabbitmq.queues.length} (leaders: ${[...new Set(s.rabbitmq.queues.map((q) => q.leader))].join(", ")})`,
    "full details, credentials included: pnpm --silent stack status --json",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

// Exit once stdout has drained: process.exit() right after a large write to a pipe (stack logs -n
// 100000 | less) would cut the output short.
const exitAfterOutput = (code: number) => {
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
};

main(process.argv.slice(2)).then(exitAfterOutput, (e: unknown) => {
  process.stderr.write(`[stack] error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
