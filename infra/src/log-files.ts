// `pnpm stack logs`: which file holds each part's log, the last lines of them, and following them as
// they grow (like tail -f), the infrastructure's and the supervised services' and relays' alike.
import fs from "node:fs";
import path from "node:path";
import { appLogFile, instanceName, readReplicas } from "./apps/state.ts";
import type { Layout } from "./layout.ts";
import { tailFile } from "./proc.ts";
import { SERVICE_NAMES } from "./services.ts";

/** Every part's log file by the name `stack logs` takes: postgres, rabbit-1, order, relay:order, ... */
export function stackLogFiles(layout: Layout): Record<string, string> {
  return {
    postgres: layout.postgres.logFile,
    redis: layout.redis.logFile,
    epmd: layout.epmd.logFile,
    ...Object.fromEntries(
      layout.rabbitmq.nodes.map((n) => [n.name.split("@")[0], path.join(n.logDir, `${n.name}.log`)]),
    ),
    prometheus: layout.prometheus.logFile,
    alertmanager: layout.alertmanager.logFile,
    "postgres-exporter": layout.postgresExporter.logFile,
    "redis-exporter": layout.redisExporter.logFile,
    supervisor: appLogFile(layout, "supervisor"),
    control: layout.control.logFile, // the control service and its keeper
    // Every instance the last supervisor ran: order, order#2, relay:order, relay:order#2, ...
    ...Object.fromEntries(
      SERVICE_NAMES.flatMap((s) =>
        [s, `relay:${s}`].flatMap((app) =>
          Array.from({ length: readReplicas(layout) }, (_, i) => {
            const name = instanceName(app, i + 1);
            return [name, appLogFile(layout, name)];
          }),
        ),
      ),
    ),
  };
}

const header = (name: string, file: string) => `==> ${name} (${file}) <==\n`;

export function printLastLines(
  files: Record<string, string>,
  lines: number,
  write: (s: string) => void,
): void {
  for (const [name, file] of Object.entries(files)) write(`${header(name, file)}${tailFile(file, lines)}\n`);
}

const sizeOf = (file: string): number => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0; // not written yet: followed from its first line once it appears
  }
};

/** The complete lines written to `file` from byte `from` on, and the offset after them. */
function newLines(file: string, from: number, size: number): { text: string; next: number } {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(size - from);
    const n = fs.readSync(fd, buf, 0, buf.length, from);
    // A line still being written waits for its newline, so two files' lines never interleave mid-line.
    const end = buf.subarray(0, n).lastIndexOf(0x0a) + 1;
    return { text: buf.subarray(0, end).toString("utf8"), next: from + end };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Prints what is appended to any of `files` from now on, under a header whenever the file changes,
 * until the returned function is called. A file that shrinks (truncated, replaced) is read from its start.
 */
export function followFiles(
  files: Record<string, string>,
  write: (s: string) => void,
  intervalMs = 250,
): () => void {
  const offsets = new Map(Object.values(files).map((f) => [f, sizeOf(f)]));
  let last: string | undefined = Object.values(files).at(-1);
  const timer = setInterval(() => {
    for (const [name, file] of Object.entries(files)) {
      const size = sizeOf(file);
      let from = offsets.get(file) ?? 0;
      if (size < from) from = 0;
      if (size === from) continue;
      const { text, next } = newLines(file, from, size);
      offsets.set(file, next);
      if (!text) continue;
      if (last !== file && Object.keys(files).length > 1) write(`\n${header(name, file)}`);
      last = file;
      write(text);
    }
  }, intervalMs);
  return () => clearInterval(timer);
}
