// The commands behind cli.ts, as a function of argv and an output sink so tests can call it.
// Exit codes follow k6: 99 when thresholds fail, 104 for an invalid config (a bad flag or argument
// included: @orderflow/config's parseArgv, with the usage), 1 for anything else.
import fs from "node:fs";
import path from "node:path";
import { parseArgv, UsageError } from "@orderflow/config";
import type { LoadEnv } from "./env.ts";
import { createJsonlWriter, type LedgerEntry, recordSuccesses } from "./ledger.ts";
import { formatProgress } from "./progress.ts";
import type { AuditVerdict, ExtraSeries } from "./report/derive.ts";
import { fmtPct, fmtUs } from "./report/html.ts";
import type { ReportInput } from "./report/render-report.ts";
import { renderSummaryMarkdown } from "./report/summary-table.ts";
import { writeJson, writeReport, writeSummary } from "./report/write-report.ts";
import type { RunResult } from "./result.ts";
import { type LoadRun, startLoad } from "./runner.ts";
import { loadScenario } from "./scenario-file.ts";

export const EXIT = { ok: 0, failed: 1, thresholdsFailed: 99, invalidConfig: 104 } as const;

export interface CliIo {
  log: (line: string) => void;
  env: LoadEnv;
  /** Called with the running load so a signal handler can stop it gracefully. */
  onRun?: (run: LoadRun) => void;
}

const USAGE = `usage:
  cli.ts run --config <scenario.json|scenario.ts> [--out DIR] [--name NAME]
  cli.ts report --run RUN.json [--series SERIES.json] [--audit AUDIT.json] [--machine TEXT] --out REPORT.html
  cli.ts summary --out DIR [--machine TEXT] RUN.json [RUN.json ...]
     (RUN.audit.json and RUN.series.json beside a RUN.json are picked up)`;

class ConfigError extends Error {}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "run":
        return await runCommand(rest, io);
      case "report":
        return reportCommand(rest, io);
      case "summary":
        return summaryCommand(rest, io);
      default:
        io.log(USAGE);
        return command === undefined || command === "help" || command === "--help"
          ? EXIT.ok
          : EXIT.invalidConfig;
    }
  } catch (err) {
    io.log(`error: ${(err as Error).message}`);
    if (err instanceof UsageError) {
      io.log(USAGE);
      return EXIT.invalidConfig;
    }
    return err instanceof ConfigError ? EXIT.invalidConfig : EXIT.failed;
  }
}

async function runCommand(args: string[], io: CliIo): Promise<number> {
  const { values, fail } = parseArgv(
    {
      usage: USAGE,
      options: { config: { type: "string" }, out: { type: "string" }, name: { type: "string" } },
    },
    args,
  );
  if (!values.config) return fail("--config is required");
  let scenario: Awaited<ReturnType<typeof loadScenario>>;
  try {
    scenario = await loadScenario(values.config);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const name = values.name ?? scenario.name;
  const outDir = path.resolve(values.out ?? path.join(io.env.reportsDir, "runs"));
  const ledger = scenario.ledger
    ? createJsonlWriter<LedgerEntry>(path.join(outDir, `${name}.ledger.jsonl`))
    : null;

  let run: LoadRun;
  try {
    run = startLoad(name, scenario.options, scenario.request, {
      ...(ledger ? { onSuccess: recordSuccesses(ledger.write, scenario.keyHeader) } : {}),
      onProgress: (p) => io.log(formatProgress(p)),
    });
  } catch (err) {
    await ledger?.close();
    throw new ConfigError((err as Error).message);
  }
  io.onRun?.(run);
  const result = await run.result.finally(() => ledger?.close());

  const jsonFile = path.join(outDir, `${name}.json`);
  writeJson(jsonFile, result);
  const htmlFile = writeReport(path.join(outDir, `${name}.html`), { run: result });
  for (const line of describeResult(result)) io.log(line);
  io.log(`wrote ${jsonFile}`);
  io.log(`wrote ${htmlFile}`);
  if (ledger) io.log(`wrote ${path.join(outDir, `${name}.ledger.jsonl`)} (${ledger.count} entries)`);
  return result.passed ? EXIT.ok : EXIT.thresholdsFailed;
}

function describeResult(r: RunResult): string[] {
  const s = r.summary;
  const lat = s.latencyUs;
  const lines = [
    `${r.name}: ${s.iterations.offered} offered (${s.offeredPerSecond.toFixed(1)}/s), ${s.iterations.completed} completed (${s.achievedPerSecond.toFixed(1)}/s), ${s.iterations.dropped} dropped`,
    `  status 2xx ${s.status["2xx"]}  3xx ${s.status["3xx"]}  4xx ${s.status["4xx"]}  5xx ${s.status["5xx"]}  errors ${s.status.errors}  (failed ${fmtPct(s.httpReqFailedRate)})`,
    `  latency from intended start: p50 ${fmtUs(lat?.p50)}  p90 ${fmtUs(lat?.p90)}  p95 ${fmtUs(lat?.p95)}  p99 ${fmtUs(lat?.p99)}  max ${fmtUs(lat?.max)}`,
  ];
  for (const t of r.thresholds) {
    lines.push(
      `  ${t.ok ? "✓" : "✗"} ${t.metric}: ${t.expression} (actual ${t.actual === null ? "no samples" : t.actual})`,
    );
  }
  lines.push(r.passed ? "thresholds passed" : "THRESHOLDS FAILED");
  return lines;
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, "utf8")) as T;
}

/** RUN.json plus RUN.audit.json and RUN.series.json when they sit beside it. */
function loadReportInput(
  runFile: string,
  o: { series?: string; audit?: string; machine?: string },
): ReportInput {
  const base = runFile.replace(/\.json$/, "");
  const seriesFile = o.series ?? (fs.existsSync(`${base}.series.json`) ? `${base}.series.json` : undefined);
  const auditFile = o.audit ?? (fs.existsSync(`${base}.audit.json`) ? `${base}.audit.json` : undefined);
  const run = readJson<RunResult>(runFile);
  if (run.format !== "orderflow-load-run/1")
    throw new ConfigError(`${runFile} is not a run JSON written by cli.ts run`);
  return {
    run,
    ...(seriesFile ? { series: readJson<ExtraSeries[]>(seriesFile) } : {}),
    ...(auditFile ? { audit: readJson<AuditVerdict>(auditFile) } : {}),
    ...(o.machine ? { machine: o.machine } : {}),
  };
}

function reportCommand(args: string[], io: CliIo): number {
  const { values, fail } = parseArgv(
    {
      usage: USAGE,
      options: {
        run: { type: "string" },
        series: { type: "string" },
        audit: { type: "string" },
        machine: { type: "string" },
        out: { type: "string" },
      },
    },
    args,
  );
  if (!values.run || !values.out) return fail("--run and --out are required");
  const input = loadReportInput(values.run, values);
  io.log(`wrote ${writeReport(path.resolve(values.out), input)}`);
  return EXIT.ok;
}

function summaryCommand(args: string[], io: CliIo): number {
  const { values, positionals, fail } = parseArgv(
    {
      usage: USAGE,
      options: { out: { type: "string" }, machine: { type: "string" } },
      positionals: { max: Number.POSITIVE_INFINITY },
    },
    args,
  );
  if (!values.out || positionals.length === 0) return fail("--out and at least one RUN.json are required");
  const outDir = path.resolve(values.out);
  const inputs = positionals.map((f) =>
    loadReportInput(f, values.machine ? { machine: values.machine } : {}),
  );
  const links = positionals.map((f) => {
    const html = f.replace(/\.json$/, ".html");
    return fs.existsSync(html) ? path.relative(outDir, path.resolve(html)) : undefined;
  });
  const written = writeSummary(outDir, inputs, {
    ...(values.machine ? { machine: values.machine } : {}),
    links,
  });
  io.log(renderSummaryMarkdown(inputs, values.machine));
  io.log(`wrote ${written.html}`);
  io.log(`wrote ${written.markdown}`);
  return EXIT.ok;
}
