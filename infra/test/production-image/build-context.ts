// What `docker build .` would be sent from this working tree, copied to a folder: the files a clean
// clone would have (tracked ones, and new ones git does not ignore, since colleagues' work may not be
// committed yet) that still exist, minus what .dockerignore keeps out.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { isDockerIgnored, parseDockerignore } from "./dockerignore.ts";

export function buildContextFiles(root: string): string[] {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const rules = parseDockerignore(fs.readFileSync(path.join(root, ".dockerignore"), "utf8"));
  const files = [...new Set(listed.split("\0").filter((f) => f !== ""))];
  return files
    .filter((f) => fs.lstatSync(path.join(root, f), { throwIfNoEntry: false })?.isFile())
    .filter((f) => !isDockerIgnored(rules, f));
}

export function copyBuildContext(root: string, dest: string): string[] {
  const files = buildContextFiles(root);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dest, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(dest, f));
  }
  return files;
}
