// The ledger: every request that got a 2xx, with its idempotency key and parsed body (the order id),
// one JSON object per line. The audit later checks each entry across the databases and the broker.
import fs from "node:fs";
import path from "node:path";
import type { SuccessInfo } from "./runner.ts";

export interface LedgerEntry {
  iteration: number;
  /** The request's idempotency key header; null when the request had none. */
  key: string | null;
  status: number;
  /** The response body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
  latencyUs: number;
  /** Milliseconds since the run started: when it was meant to start, and when the 2xx came back. */
  intendedMs: number;
  finishedMs: number;
}

function header(headers: Record<string, string> | undefined, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === wanted) return v;
  return null;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A runner `onSuccess` hook that turns each 2xx into a ledger entry. */
export function recordSuccesses(
  write: (entry: LedgerEntry) => void,
  keyHeader = "idempotency-key",
): (info: SuccessInfo) => void {
  return (info) =>
    write({
      iteration: info.iteration,
      key: header(info.request.headers, keyHeader),
      status: info.status,
      body: parseBody(info.body),
      latencyUs: info.latencyUs,
      intendedMs: info.intendedMs,
      finishedMs: info.finishedMs,
    });
}

export interface JsonlWriter<T> {
  write(entry: T): void;
  /** Flushes and closes; resolves once every line is on disk. */
  close(): Promise<void>;
  readonly count: number;
}

export function createJsonlWriter<T>(file: string): JsonlWriter<T> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const stream = fs.createWriteStream(file, { flags: "w" });
  let failure: Error | null = null;
  stream.on("error", (err) => {
    failure = err;
  });
  let count = 0;
  return {
    write(entry) {
      if (failure) throw failure;
      // The stream buffers; a fault-lab run writes at most tens of thousands of short lines.
      stream.write(`${JSON.stringify(entry)}\n`);
      count++;
    },
    close() {
      return new Promise((resolve, reject) => {
        stream.end(() => (failure ? reject(failure) : resolve()));
      });
    },
    get count() {
      return count;
    },
  };
}

export function readJsonl<T>(file: string): T[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}
