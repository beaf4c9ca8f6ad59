// The Dockerfile and .dockerignore, checked as text: the test suite runs without Docker, so these rules
// are what keeps the image lean and free of secrets until someone builds it (production-build.test.ts
// runs the same build steps without Docker).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../../src/index.ts";
import { nodeVersionOf, parseDockerfile, type Stage, stageCmd, stageEnv } from "./dockerfile.ts";
import { isDockerIgnored, parseDockerignore } from "./dockerignore.ts";

const stages = parseDockerfile(fs.readFileSync(path.join(repoRoot, "Dockerfile"), "utf8"));
const runtime = stages.at(-1) as Stage;
const rules = parseDockerignore(fs.readFileSync(path.join(repoRoot, ".dockerignore"), "utf8"));
const NVMRC = path.join(repoRoot, ".nvmrc");
const has = (s: Stage, keyword: string, re: RegExp) =>
  s.instructions.some((i) => i.keyword === keyword && re.test(i.args));

describe("the Dockerfile", () => {
  test("builds in one stage and runs from another, whose files come only from the build's output", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const copies = runtime.instructions.filter((i) => i.keyword === "COPY" || i.keyword === "ADD");
    expect(copies.length).toBeGreaterThan(0);
    // Nothing from the build context: only what a build stage made (--from=<stage>).
    for (const c of copies) expect(c.args).toMatch(/^--from=\S+\s/);
    expect(copies.some((c) => /(^|\s)\.\s+\.\/?$/.test(c.args))).toBe(false);
  });

  test("runs its build steps through scripts/build-production.sh, after a lockfile-only pnpm fetch", () => {
    const build = stages.slice(0, -1);
    expect(build.some((s) => has(s, "RUN", /scripts\/build-production\.sh/))).toBe(true);
    const steps = build.flatMap((s) => s.instructions);
    const fetchAt = steps.findIndex((i) => i.keyword === "RUN" && /\bpnpm fetch\b/.test(i.args));
    const copyAllAt = steps.findIndex((i) => i.keyword === "COPY" && /^\.\s+\./.test(i.args));
    expect(fetchAt).toBeGreaterThan(-1);
    expect(fetchAt).toBeLessThan(copyAllAt);
    expect(fs.existsSync(path.join(repoRoot, "scripts/build-production.sh"))).toBe(true);
  });

  test("runs as a user other than root, with NODE_ENV=production and the production export condition", () => {
    const users = runtime.instructions.filter((i) => i.keyword === "USER");
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)?.args).not.toMatch(/^(root|0)(:|$)/);
    const env = stageEnv(runtime);
    expect(env.NODE_ENV).toBe("production");
    expect(env.NODE_OPTIONS?.split(/\s+/)).toContain("--conditions=production");
  });

  test("every stage starts from a Node image of version 22 or later, pinned to a minor version", () => {
    for (const s of stages) {
      const version = nodeVersionOf(s.from);
      expect(version, `${s.from} pins no node:<major>.<minor>[.<patch>]-<variant> tag`).toBeDefined();
      expect(Number(version?.split(".")[0])).toBeGreaterThanOrEqual(22);
    }
    expect(new Set(stages.map((s) => s.from)).size).toBe(1);
  });

  // Skipped, visibly, in a checkout without .nvmrc: then there is nothing to agree with.
  test.skipIf(!fs.existsSync(NVMRC))("runs the Node line that .nvmrc names for development tools", () => {
    const line = fs.readFileSync(NVMRC, "utf8").trim().replace(/^v/, "");
    expect(nodeVersionOf(runtime.from)?.split(".")[0]).toBe(line.split(".")[0]);
  });

  test("starts the order service's compiled entry point unless docker-compose.yml says otherwise", () => {
    expect(stageCmd(runtime)).toEqual(["node", "services/order/dist/src/main.js"]);
  });

  test("installs pnpm at the version package.json's packageManager names, not one of its own", () => {
    const pinned = stages
      .flatMap((s) => s.instructions)
      .flatMap((i) => [...i.args.matchAll(/pnpm@(\d[\w.-]*)/g)]);
    expect(pinned).toEqual([]);
    expect(stages.some((s) => has(s, "RUN", /packageManager/))).toBe(true);
  });
});

describe(".dockerignore", () => {
  test.each([
    ".env",
    ".env.local",
    "services/order/.env",
    "packages/outbox/.env.production",
    ".stack/secrets.json",
    ".git/HEAD",
    "node_modules/vitest/package.json",
    "services/order/node_modules/fastify/package.json",
    "services/order/dist/src/main.js",
    "packages/outbox/dist/src/relay-main.js",
    "services/order/generated/prisma/client.ts",
    "reports/vitest-results.json",
    "reports/latest/index.html",
  ])("keeps %s out of the build context", (file) => {
    expect(isDockerIgnored(rules, file)).toBe(true);
  });

  test.each([
    "package.json",
    "pnpm-lock.yaml",
    "scripts/build-production.sh",
    "services/order/src/main.ts",
    "services/order/prisma/migrations/20261130100000_order/migration.sql",
    ".env.example",
    "services/order/.env.example",
  ])("sends %s", (file) => {
    expect(isDockerIgnored(rules, file)).toBe(false);
  });
});
