// The only reader of process.argv / process.env in the bench. The stack's own settings
// (ORDERFLOW_PORT_OFFSET, ORDERFLOW_STACK_DIR) are read by @orderflow/infra.
export interface BenchEnv {
  /** ~2 minutes instead of ~10: fewer rows, shorter runs, fewer repeats. */
  quick: boolean;
  /** Run only these sections (comma-separated names), all when empty. */
  only: string[];
  outDir: string;
}

export function readBenchEnv(argv: string[] = process.argv.slice(2)): BenchEnv {
  const only = argv
    .filter((a) => a.startsWith("--only="))
    .flatMap((a) => a.slice("--only=".length).split(","))
    .filter(Boolean);
  return {
    quick: argv.includes("--quick") || process.env.BENCH_QUICK === "1",
    only,
    outDir: process.env.BENCH_OUT_DIR ?? "reports/bench",
  };
}
