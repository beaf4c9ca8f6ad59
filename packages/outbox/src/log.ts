import type { Log, LogLevel } from "./types.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One JSON object per line on stdout; enough for a container's log collector, no pino needed. */
export function jsonLog(opts: { name?: string; level?: LogLevel; write?: (line: string) => void } = {}): Log {
  const min = ORDER[opts.level ?? "info"];
  const write = opts.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  return (level, event, fields) => {
    if (ORDER[level] < min) return;
    write(
      JSON.stringify({
        time: new Date().toISOString(),
        level,
        name: opts.name ?? "outbox",
        event,
        ...fields,
      }),
    );
  };
}

export const silentLog: Log = () => {};
