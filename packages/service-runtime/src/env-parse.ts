// Parsing helpers for each service's env.ts (the only place that passes process.env in). Every error
// names the variable, so a service that cannot start says why.
import { readLabSwitches } from "./lab.ts";
import type { CommonEnv } from "./run-service.ts";

export type RawEnv = Record<string, string | undefined>;

export function required(env: RawEnv, name: string): string {
  const v = env[name];
  if (v === undefined || v === "") throw new Error(`${name} is required (see .env.example)`);
  return v;
}

export function optional(env: RawEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === "" ? undefined : v;
}

export function int(env: RawEnv, name: string, fallback: number): number {
  const v = optional(env, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
}

export function list(env: RawEnv, name: string): string[] {
  return required(env, name)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function flag(env: RawEnv, name: string, fallback: boolean): boolean {
  const v = optional(env, name);
  if (v === undefined) return fallback;
  if (!["0", "1", "true", "false"].includes(v)) throw new Error(`${name} must be true or false, got "${v}"`);
  return v === "1" || v === "true";
}

/** The variables every service reads, under its prefix: ORDER_HOST, ORDER_PORT, ORDER_DATABASE_URL, ... */
export function readCommonEnv(env: RawEnv, prefix: string, defaultPort: number): CommonEnv {
  return {
    host: optional(env, `${prefix}_HOST`) ?? "127.0.0.1",
    port: int(env, `${prefix}_PORT`, defaultPort),
    databaseUrl: required(env, `${prefix}_DATABASE_URL`),
    amqpUrls: list(env, `${prefix}_AMQP_URLS`),
    redisUrl: optional(env, "REDIS_URL"),
    logLevel: optional(env, "LOG_LEVEL") ?? "info",
    inboxRetentionMs: int(env, "INBOX_RETENTION_MS", 7 * 24 * 3_600_000),
    relayMaxBackoffMs: int(env, "OUTBOX_MAX_BACKOFF_MS", 2 * 3_600_000),
    // The fault lab's switches (load-tests/src/fault); unset, every protection is on.
    lab: readLabSwitches(env),
  };
}
