// Logging is a plain function passed in; services adapt it to their logger (pino, console, ...).
export type LogLevel = "debug" | "info" | "warn" | "error";
export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

export const silentLogger: Logger = () => {};
export const consoleLogger: Logger = (level, message, fields) =>
  console[level === "debug" ? "log" : level](`[messaging] ${level} ${message}`, fields ?? "");
