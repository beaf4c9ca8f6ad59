import { defineConfig } from "vitest/config";
import { ComponentsFirst } from "./testkit/src/sequencer.ts";

// One configuration for every package's tests. Integration tests share one local stack
// (started by `pnpm stack up`) and several of them kill broker nodes, so files run one at a time.
export default defineConfig({
  test: {
    include: ["{infra,packages,services,lab,control,load,testkit,bench}/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/.stack/**"],
    fileParallelism: false,
    setupFiles: ["./testkit/src/services-per-suite.ts"],
    sequence: { sequencer: ComponentsFirst },
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The JSON report feeds the "N passed, N failed" line that scripts/test-all.sh prints.
    reporters: ["default", "json"],
    outputFile: { json: "reports/vitest-results.json" },
  },
});
