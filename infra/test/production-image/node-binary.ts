// The Node binary the image runs, as npm's `node` package ships it (the registry is the one place this
// machine may download from), installed once per version into a folder kept across runs.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function versionOf(bin: string): string | undefined {
  try {
    return execFileSync(bin, ["--version"], { encoding: "utf8", timeout: 10_000 }).trim().replace(/^v/, "");
  } catch {
    return undefined;
  }
}

// "24.11" asks for the newest 24.11.x; "24.11.1" for exactly that.
const satisfies = (have: string | undefined, want: string) =>
  have !== undefined && (have === want || have.startsWith(`${want}.`));

export function nodeBinary(version: string, cacheDir = path.join(os.tmpdir(), "orderflow-node")): string {
  if (!/^\d+\.\d+(\.\d+)?$/.test(version))
    throw new Error(`nodeBinary: expected a version like 24.11 or 24.11.1, got "${version}"`);
  const dir = path.join(cacheDir, version);
  const bin = path.join(dir, "node_modules", ".bin", "node");
  if (satisfies(versionOf(bin), version)) return bin;
  // Installed beside the final folder and moved in once complete, so a run cut short leaves no half copy.
  fs.mkdirSync(cacheDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(cacheDir, `${version}.partial-`));
  try {
    execFileSync("npm", ["install", "--prefix", staging, "--no-fund", "--no-audit", `node@${version}`], {
      stdio: "pipe",
      timeout: 240_000,
    });
    // Another run may have installed the same version meanwhile: then its copy is used, and kept.
    if (!satisfies(versionOf(bin), version)) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(staging, dir);
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  const got = versionOf(bin);
  if (!satisfies(got, version))
    throw new Error(`npm's node@${version} gave no working Node ${version} at ${bin} (got ${got ?? "none"})`);
  return bin;
}
