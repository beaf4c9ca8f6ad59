// bench.json (everything) and bench.md (the table README quotes, headed with the machine).
import fs from "node:fs";
import path from "node:path";
import type { Machine } from "./machine.ts";
import type { SectionResult } from "./section.ts";

export interface Report {
  machine: Machine;
  command: string;
  quick: boolean;
  durationSeconds: number;
  /** The saga section's headline figures, when it ran. */
  saga?: Record<string, unknown>;
  /** The memory section's headline figures, when it ran. */
  memory?: Record<string, unknown>;
  /** The peers section's rows and orderflow's throughput over the best peer, when it ran. */
  peers?: Record<string, unknown>;
  /** The ordering section's ordered and unordered throughput and p99, when it ran. */
  ordering?: Record<string, unknown>;
  sections: Record<string, SectionResult>;
  failures: Record<string, string>;
}

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

export function renderMarkdown(r: Report): string {
  const m = r.machine;
  const out: string[] = [
    `# orderflow bench`,
    "",
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}; ${m.date};` +
      ` load average ${m.loadAverage.start.toFixed(1)} at start, ${m.loadAverage.end.toFixed(1)} at end` +
      ` (\`${r.command}\`, ${Math.round(r.durationSeconds)} s${r.quick ? ", quick mode" : ""}).`,
    "",
    "Ratios measured in the same run are the result; absolute numbers are from a shared, noisy machine.",
    "Spread: median (min-max, n repeats) unless stated. Kind: measured, derived (arithmetic on measured" +
      " values of this run) or estimated.",
    "",
  ];
  for (const s of Object.values(r.sections)) {
    out.push(
      `## ${s.title}`,
      "",
      "| measure | result | spread | kind | note |",
      "| --- | --- | --- | --- | --- |",
    );
    for (const row of s.rows)
      out.push(
        `| ${cell(row.measure)} | ${cell(row.result)} | ${cell(row.spread)} | ${row.kind} | ${cell(row.note ?? "")} |`,
      );
    out.push("");
  }
  const failed = Object.entries(r.failures);
  if (failed.length > 0) {
    out.push("## Sections that failed", "");
    for (const [name, why] of failed) out.push(`- ${name}: ${cell(why)}`);
    out.push("");
  }
  return out.join("\n");
}

export function writeReport(outDir: string, r: Report): { json: string; md: string } {
  fs.mkdirSync(outDir, { recursive: true });
  const json = path.join(outDir, "bench.json");
  const md = path.join(outDir, "bench.md");
  fs.writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  fs.writeFileSync(md, renderMarkdown(r));
  return { json, md };
}
