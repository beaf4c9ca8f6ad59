import { defineConfig } from "vitest/config";

// One configuration for every package's tests. Integration tests share one local stack
// (started by `pnpm stack up`) and several of them kill broker nodes, so files run one at a time.
export default defineConfig({
  test: {
    include: ["{infra,packages,services,load-tests}/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/.stack/**"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
