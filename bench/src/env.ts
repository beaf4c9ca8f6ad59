// The only reader of process.env in the bench (main.ts reads the command line). The stack's own
// settings (ORDERFLOW_PORT_OFFSET, ORDERFLOW_STACK_DIR) are read by @orderflow/infra.
import { bool, type RawEnv, readEnv, str } from "@orderflow/config";

export interface BenchEnv {
  /** ~2 minutes instead of ~10: fewer rows, shorter runs, fewer repeats. */
  quick: boolean;
  /** Run only these sections (comma-separated names), all when empty. */
  only: string[];
  /** The memory section's orders/s when the saga section does not run before it (else its sustained rate). */
  memoryRate: number | undefined;
  /** `--replicas=N`: the saga section's defaults also run with N of each service and relay. */
  replicas: number | undefined;
  outDir: string;
}

/** The command line's choices (`--quick`, `--only=...`) with BENCH_QUICK and BENCH_OUT_DIR. */
export function readBenchEnv(
  args: { quick: boolean; only: string[]; memoryRate?: number | undefined; replicas?: number | undefined },
  env: RawEnv = process.env,
): BenchEnv {
  const e = readEnv(
    { quick: bool("BENCH_QUICK").default(false), outDir: str("BENCH_OUT_DIR").default("reports/bench") },
    env,
  );
  return {
    quick: args.quick || e.quick,
    only: args.only,
    memoryRate: args.memoryRate,
    replicas: args.replicas,
    outDir: e.outDir,
  };
}
