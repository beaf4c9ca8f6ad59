// What the containers run or mount is checked out with LF on any clone (.gitattributes), whatever the
// cloner's core.autocrlf: a CR after `#!/usr/bin/env bash` or at the end of a command breaks it inside
// the container, far from the checkout that caused it.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../src/index.ts";

const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

const tracked = git("ls-files", "-z").split("\0").filter(Boolean);

/** Scripts, entrypoints and Dockerfiles: what bash, node, perl or the engine runs. */
const RUN = /(\.(sh|pl|js|mjs|ts)|(^|\/)Dockerfile|^\.ci\/run)$/;
/** What docker-compose.yml mounts into a container, read there as it is. */
const MOUNTED = /(\.(conf|yml|yaml|json|sql)|\/enabled_plugins|^\.env\.example)$/;

describe("line ends", () => {
  const files = tracked.filter((f) => RUN.test(f) || MOUNTED.test(f));

  test("every script, entrypoint, Dockerfile and mounted file is checked out with LF", () => {
    expect(files).toEqual(
      expect.arrayContaining([".ci/run", "Dockerfile", "infra/rabbitmq/compose/setup.sh"]),
    );
    // `git check-attr` answers "<file>: eol: lf" for each file .gitattributes gives LF.
    const lines = git("check-attr", "eol", "--", ...files)
      .trim()
      .split("\n");
    const notLf = lines.filter((l) => !l.endsWith(": eol: lf"));
    expect(notLf).toEqual([]);
    expect(lines).toHaveLength(files.length);
  });

  test("none of them holds a CR in the repository", () => {
    const withCr = files.filter((f) => readFileSync(path.join(repoRoot, f), "utf8").includes("\r"));
    expect(withCr).toEqual([]);
  });
});
