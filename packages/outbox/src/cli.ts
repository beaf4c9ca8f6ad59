// `outbox <command>`: operator commands against a service's outbox (database from env.ts).
//   outbox redrive [--id <message-id>]... [--event-type <type>]   failed rows back to pending
//   outbox stats                                                    backlog, failed, stale sent
//   outbox migrate <migrations-dir>...                              apply Prisma-format migrations
import { applyMigrations } from "@orderflow/db";
import pg from "pg";
import { readOutboxEnv } from "./env.ts";
import { jsonLog } from "./log.ts";
import { redrive } from "./redrive.ts";
import { outboxStats } from "./sql/outbox-stats.ts";

function flags(args: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) if (args[i] === name && args[i + 1]) out.push(args[i + 1] as string);
  return out;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const env = readOutboxEnv(undefined, false);
  if (command === "migrate") {
    const r = await applyMigrations({ databaseUrl: env.databaseUrl, migrationsDirs: args });
    console.log(JSON.stringify(r));
    return 0;
  }
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 1 });
  try {
    if (command === "redrive") {
      const ids = flags(args, "--id");
      const eventType = flags(args, "--event-type")[0];
      const redriven = await redrive(
        pool,
        { ...(ids.length ? { messageIds: ids } : {}), ...(eventType ? { eventType } : {}) },
        { log: jsonLog({ name: "outbox-cli" }) },
      );
      console.log(JSON.stringify({ redriven: redriven.length, messageIds: redriven }));
      return 0;
    }
    if (command === "stats") {
      console.log(JSON.stringify(await outboxStats(pool, env.reconcile.staleAfterMs ?? 5 * 60_000)));
      return 0;
    }
    console.error(
      "usage: outbox redrive [--id <uuid>]... [--event-type <type>] | outbox stats | outbox migrate <dir>...",
    );
    return 2;
  } finally {
    await pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error((e as Error).message);
    process.exit(1);
  },
);
