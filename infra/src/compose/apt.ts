// Debian packages for `pnpm compose`, as root: installs from the system's own lists, and downloads from
// Debian trixie through lists of its own (Dir::State::Lists, SourceParts) that never touch the system's.
import fs from "node:fs";
import path from "node:path";
import { run, runOrThrow } from "../proc.ts";
import type { ComposeLayout } from "./layout.ts";

export const isDebian = (): boolean => fs.existsSync("/etc/debian_version");

export async function hasCommand(name: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return (await run("sh", ["-c", `command -v ${name}`], { env, timeoutMs: 10_000 })).code === 0;
}

/** apt-get install -y PACKAGES from the system's sources (one update first, as a fresh image needs it). */
export async function aptInstall(packages: string[], env: NodeJS.ProcessEnv, log: (m: string) => void) {
  const e = { ...env, DEBIAN_FRONTEND: "noninteractive" };
  log(`installing ${packages.join(", ")} (apt-get)`);
  let r = await run(
    "nice",
    ["-n", "10", "apt-get", "install", "-y", "--no-install-recommends", ...packages],
    {
      env: e,
      timeoutMs: 900_000,
    },
  );
  if (r.code !== 0) {
    await run("apt-get", ["update"], { env: e, timeoutMs: 300_000 });
    r = await run("nice", ["-n", "10", "apt-get", "install", "-y", "--no-install-recommends", ...packages], {
      env: e,
      timeoutMs: 900_000,
    });
  }
  if (r.code !== 0)
    throw new Error(`apt-get install ${packages.join(" ")} failed: ${r.stderr.trim().slice(-1500)}`);
}

/** The Debian mirror the system's apt uses (its first URIs / deb line), for trixie and debootstrap. */
export function debianMirror(): string {
  const files = ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"];
  for (const f of files) {
    if (!fs.existsSync(f)) continue;
    const text = fs.readFileSync(f, "utf8");
    const m = /^URIs:\s*(\S+)/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+/m.exec(text);
    if (m?.[1] && !m[1].includes("security")) return m[1];
  }
  return "http://deb.debian.org/debian";
}

/** apt-get options that read only our trixie entry and keep lists and cache in our folder. */
function trixieOptions(layout: ComposeLayout): string[] {
  return [
    "-o",
    "Dir::Etc::SourceList=/dev/null",
    "-o",
    `Dir::Etc::SourceParts=${layout.apt.sourceParts}`,
    "-o",
    `Dir::State::Lists=${layout.apt.lists}`,
    "-o",
    `Dir::Cache=${layout.apt.cache}`,
  ];
}

/** Downloads the .deb of PACKAGE from Debian trixie into our folder; returns its path. */
export async function downloadFromTrixie(
  pkg: string,
  layout: ComposeLayout,
  env: NodeJS.ProcessEnv,
  log: (m: string) => void,
): Promise<string> {
  for (const d of [
    layout.apt.sourceParts,
    path.join(layout.apt.lists, "partial"),
    layout.apt.cache,
    layout.apt.debs,
  ])
    fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(
    path.join(layout.apt.sourceParts, "trixie.sources"),
    `Types: deb\nURIs: ${debianMirror()}\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`,
  );
  log(`downloading ${pkg} from Debian trixie (lists kept in ${layout.apt.lists})`);
  await runOrThrow("apt-get update (trixie)", "apt-get", [...trixieOptions(layout), "update"], {
    env,
    timeoutMs: 300_000,
  });
  for (const f of fs.readdirSync(layout.apt.debs))
    if (f.startsWith(`${pkg}_`)) fs.rmSync(path.join(layout.apt.debs, f));
  await runOrThrow("apt-get download (trixie)", "apt-get", [...trixieOptions(layout), "download", pkg], {
    env,
    cwd: layout.apt.debs,
    timeoutMs: 300_000,
  });
  const deb = fs.readdirSync(layout.apt.debs).find((f) => f.startsWith(`${pkg}_`) && f.endsWith(".deb"));
  if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${layout.apt.debs}`);
  return path.join(layout.apt.debs, deb);
}
