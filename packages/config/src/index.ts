// @orderflow/config: one way to read configuration (readEnv and its field helpers) and arguments
// (parseCli over node:util parseArgs). See README.md.
export { type CliSpec, exitWithUsage, type ParsedCli, parseArgv, parseCli, UsageError } from "./cli.ts";
export { ConfigError, type EnvSchema, type EnvValues, type RawEnv, readEnv } from "./env.ts";
export { EnvVar, envVar, type Names } from "./env-var.ts";
export {
  bool,
  int,
  LOG_LEVELS,
  type LogLevel,
  list,
  logLevel,
  num,
  oneOf,
  port,
  required,
  str,
  token,
  url,
} from "./fields.ts";
