// One logger for every process: pino, one JSON object per line. A service hands its instance to fastify
// (so request lines and component lines share one format) and gives each component a child logger that
// carries the component's fields (component, queue, ...). Packages accept a `Logger` and never make one.
import { type Logger, type LoggerOptions, pino } from "pino";

export type { Logger };

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface CreateLoggerOptions {
  /** The process's name: "order", "relay:inventory", "bench"... */
  name: string;
  level: LogLevel;
  /** Where lines go; default stdout. Tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    name: opts.name,
    level: opts.level,
    // ISO time reads in any log viewer; pino's default epoch milliseconds do not.
    timestamp: pino.stdTimeFunctions.isoTime,
    // Every line names what happened ("relay.broker_unavailable"): the key the stack's log readers,
    // tests and the fault lab's reports look for.
    messageKey: "event",
    formatters: { level: (label) => ({ level: label }) },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/** For tests and tools that must pass a logger and want no output. */
export const silentLogger: Logger = pino({ level: "silent" });
