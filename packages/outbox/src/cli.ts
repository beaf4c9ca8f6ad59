// `outbox <command>`: operator commands against a service's outbox (database from env.ts).
//   outbox redrive [--id <message-id>]... [--event-type <type>]   failed rows back to pending
//   outbox stats                                                    backlog, failed, stale sent
//   outbox migrate <migrations-dir>...                              apply Prisma-format migrations

import { parseCli } from "@orderflow/config";
import { applyMigrations } from "@orderflow/db";
import pg from "pg";
import { readOutboxEnv } from "./env.ts";
import { redrive } from "./redrive.ts";
import { outboxStats } from "./sql/outbox-stats.ts";

const USAGE = `usage: outbox <command>   (database: OUTBOX_DATABASE_URL or DATABASE_URL)
  redrive [--id <message-id>]... [--event-type <type>]   failed rows back to pending (all without a filter)
  stats                                                   backlog, failed, stale sent
  migrate <migrations-dir>...                             apply Prisma-format migrations`;

function parse(argv: string[]) {
  const [command, ...rest] = argv[0] === "--" ? argv.slice(1) : argv;
  switch (command) {
    case "redrive": {
      const { values } = parseCli(
        {
          usage: USAGE,
          options: { id: { type: "string", multiple: true }, "event-type": { type: "string" } },
        },
        rest,
      );
      return { command, ids: values.id ?? [], eventType: values["event-type"] } as const;
    }
    case "stats":
      parseCli({ usage: USAGE }, rest);
      return { command } as const;
    case "migrate":
      return {
        command,
        dirs: parseCli({ usage: USAGE, positionals: { min: 1, max: 100 } }, rest).positionals,
      } as const;
    default:
      return parseCli({ usage: USAGE }, []).fail(
        command ? `unknown command "${command}"` : "a command is missing",
      );
  }
}

async function main(argv: string[]): Promise<number> {
  const args = parse(argv);
  const env = readOutboxEnv(undefined, false);
  if (args.command === "migrate") {
    const r = await applyMigrations({ databaseUrl: env.databaseUrl, migrationsDirs: args.dirs });
    console.log(JSON.stringify(r));
    return 0;
  }
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 1 });
  try {
    if (args.command === "redrive") {
      const redriven = await redrive(pool, {
        ...(args.ids.length ? { messageIds: args.ids } : {}),
        ...(args.eventType ? { eventType: args.eventType } : {}),
      });
      console.log(JSON.stringify({ redriven: redriven.length, messageIds: redriven }));
      return 0;
    }
    console.log(JSON.stringify(await outboxStats(pool, env.reconcile.staleAfterMs ?? 5 * 60_000)));
    return 0;
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
