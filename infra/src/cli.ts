// `pnpm stack <up|down|status|logs|chaos>`: the local stack's command line.
import path from "node:path";
import { CHAOS_ACTIONS } from "./chaos.ts";
import { readInfraEnv } from "./env.ts";
import { stackLayout } from "./layout.ts";
import { tailFile } from "./proc.ts";
import { smoke } from "./smoke.ts";
import { down, openStack, stackStatus, up } from "./stack.ts";

const USAGE = `usage: pnpm stack <command>
  up [--no-apps]        start PostgreSQL, Redis, the 3-node RabbitMQ cluster, then the services and
                        their relays (supervised, restarted when they die); returns when healthy
  down                  stop everything the stack started (epmd included)
  status [--json]       health, URLs, ports and PIDs of every part
  smoke                 one trip through every part, as the services use them
  logs [part] [-n N]    last N log lines (part: postgres, redis, rabbit-1..3, epmd)
  chaos <action> [...]  fault injection:
${Object.values(CHAOS_ACTIONS)
  .map((a) => `    ${a.usage}`)
  .join("\n")}`;

const log = (m: string) => process.stderr.write(`[stack] ${m}\n`);

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case "up": {
      const { seconds, status } = await up(log, { apps: !rest.includes("--no-apps") });
      log(`healthy in ${seconds.toFixed(1)} s`);
      printSummary(status);
      return 0;
    }
    case "down":
      await down();
      log("stopped");
      return 0;
    case "status": {
      const status = await stackStatus();
      if (rest.includes("--json")) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      else printSummary(status);
      return status.healthy ? 0 : 1;
    }
    case "smoke": {
      const steps = await smoke(openStack(readInfraEnv(), false));
      for (const st of steps)
        process.stdout.write(
          `${st.ok ? "ok  " : "FAIL"} ${st.step} (${st.ms} ms)${st.error ? `: ${st.error}` : ""}\n`,
        );
      const ok = steps.every((st) => st.ok);
      process.stdout.write(ok ? "smoke check passed\n" : "smoke check FAILED\n");
      return ok ? 0 : 1;
    }
    case "logs": {
      const layout = stackLayout(readInfraEnv());
      const nIdx = rest.indexOf("-n");
      const lines = nIdx >= 0 ? Number(rest[nIdx + 1] ?? 50) : 50;
      const part = rest.find((x, i) => !x.startsWith("-") && (nIdx < 0 || i !== nIdx + 1));
      const files: Record<string, string> = {
        postgres: layout.postgres.logFile,
        redis: layout.redis.logFile,
        epmd: layout.epmd.logFile,
        ...Object.fromEntries(
          layout.rabbitmq.nodes.map((n) => [n.name.split("@")[0], path.join(n.logDir, `${n.name}.log`)]),
        ),
      };
      const chosen = part ? { [part]: files[part] } : files;
      for (const [name, file] of Object.entries(chosen)) {
        if (!file) throw new Error(`unknown part "${part}"; parts: ${Object.keys(files).join(", ")}`);
        process.stdout.write(`==> ${name} (${file}) <==\n${tailFile(file, lines)}\n`);
      }
      return 0;
    }
    case "chaos": {
      const [action, ...args] = rest;
      const a = action ? CHAOS_ACTIONS[action] : undefined;
      if (!a) {
        process.stderr.write(`${USAGE}\n`);
        return 2;
      }
      process.stdout.write(`${JSON.stringify(await a.run(args))}\n`);
      return 0;
    }
    default:
      process.stderr.write(`${USAGE}\n`);
      return cmd === undefined || cmd === "help" || cmd === "--help" ? 0 : 2;
  }
}

function printSummary(s: Awaited<ReturnType<typeof stackStatus>>): void {
  const lines = [
    `healthy: ${s.healthy}${s.problems.length ? `  (${s.problems.join("; ")})` : ""}`,
    `postgres   ${s.postgres.healthy ? "up  " : "DOWN"} 127.0.0.1:${s.postgres.port}  pid ${s.postgres.pid ?? "-"}  databases ${Object.values(
      s.postgres.databases,
    )
      .map((d) => d.name)
      .join(", ")}`,
    `redis      ${s.redis.healthy ? "up  " : "DOWN"} ${s.redis.url}  pid ${s.redis.pid ?? "-"}`,
    ...s.rabbitmq.nodes.map(
      (n) =>
        `${n.name.padEnd(18)} ${n.running ? "up  " : "DOWN"} amqp :${n.amqpPort}  management :${n.managementPort}  pid ${n.pid ?? "-"}`,
    ),
    ...s.services.map(
      (a) =>
        `${a.name.padEnd(18)} ${a.healthy ? "up  " : "DOWN"} ${a.url ?? ""}  pid ${a.pid ?? "-"}  restarts ${a.restarts}`,
    ),
    `queues     ${s.rabbitmq.queues.length} (leaders: ${[...new Set(s.rabbitmq.queues.map((q) => q.leader))].join(", ")})`,
    "full details, credentials included: pnpm --silent stack status --json",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`[stack] error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
