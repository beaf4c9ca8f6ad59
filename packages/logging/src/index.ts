// One logger for every process: pino, one JSON object per line. A service hands its instance to fastify
// (so request lines and component lines share one format) and gives each component a child logger that
// carries the component's fields (component, queue, ...). Packages accept a `Logger` and never make one.
import { isSpanContextValid, trace } from "@opentelemetry/api";
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

const NO_FIELDS = Object.freeze({});

/**
 * traceId and spanId of the active span on every line logged while one is active, so a log line leads to
 * its trace and back. The API alone answers "no span" when tracing is off (no context manager), at the
 * cost of one lookup and no allocation.
 */
function traceFields(): object {
  const span = trace.getActiveSpan();
  if (!span) return NO_FIELDS;
  const sc = span.spanContext();
  return isSpanContextValid(sc) ? { traceId: sc.traceId, spanId: sc.spanId } : NO_FIELDS;
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
    mixin: traceFields,
    // pino's default merge writes the line's fields into the mixin's object: the shared empty one must
    // stay empty, so without trace fields the line's own object is used as it is.
    mixinMergeStrategy: (fields, mixed) => (mixed === NO_FIELDS ? fields : Object.assign(mixed, fields)),
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/** For tests and tools that must pass a logger and want no output. */
export const silentLogger: Logger = pino({ level: "silent" });
