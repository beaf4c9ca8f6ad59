// What every benchmark section hands back: its raw numbers for bench.json and its lines of the table.
import type { Stack } from "@orderflow/infra";

export type Kind = "measured" | "derived" | "estimated";

export interface TableRow {
  measure: string;
  /** The headline value, formatted with its unit. */
  result: string;
  /** Median of repeats with min-max, or the distribution behind the headline. */
  spread: string;
  kind: Kind;
  note?: string;
}

export interface SectionResult {
  title: string;
  rows: TableRow[];
  data: Record<string, unknown>;
  /** The section's headline figures, put at the top level of bench.json under the section's name. */
  summary?: Record<string, unknown>;
}

export interface SectionContext {
  stack: Stack;
  quick: boolean;
  log: (line: string) => void;
  /** Results of the sections that ran before (the saga section divides by the ceilings). */
  earlier: Map<string, SectionResult>;
  /** `--memory-rate`: the memory section's rate when the saga section did not run before it. */
  memoryRate: number | undefined;
  /** `--replicas=N`: the saga section also runs its defaults with N of each service and relay. */
  replicas?: number | undefined;
}

export interface Section {
  name: string;
  /** Drives the three services: the preflight checks that they answer. */
  needsServices?: boolean;
  run(ctx: SectionContext): Promise<SectionResult>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "n/a";

/** "median (min-max)" of a spread. */
export const fmtSpread = (
  s: { median: number; min: number; max: number; n: number },
  digits = 0,
  unit = "",
) => `${fmt(s.median, digits)}${unit} (${fmt(s.min, digits)}-${fmt(s.max, digits)}, n=${s.n})`;
