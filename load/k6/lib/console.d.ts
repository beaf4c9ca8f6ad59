// k6 has a console (log, info, warn, error, debug) that @types/k6 does not declare; the DOM lib would
// also declare fetch, setTimeout and the rest k6 lacks, so only this.
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
};
