// Debian base images for the local images: `debootstrap --variant=minbase <release>` into our folder,
// then `docker import`. Made once per engine; the root filesystem is kept for the next engine.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { run } from "../proc.ts";
import { aptInstall, debianMirror, hasCommand } from "./apt.ts";
import type { Docker } from "./docker.ts";
import type { ComposeLayout } from "./layout.ts";

export const LOCAL_LABEL = "dev.orderflow.compose.local-image";
export const baseImage = (release: string): string => `orderflow-local/debian:${release}`;

export async function imageExists(docker: Docker, image: string): Promise<boolean> {
  return (await docker.run(["image", "inspect", "--format", "{{.Id}}", image], 30_000)).code === 0;
}

/** debootstrap removes its own debootstrap/ folder when it finishes; a folder with it is a broken run. */
const complete = (dir: string) =>
  fs.existsSync(path.join(dir, "etc/os-release")) && !fs.existsSync(path.join(dir, "debootstrap"));

/** What Debian's own container images set up: no daemon starts during a build, no recommends. */
function prepareRootfs(dir: string) {
  fs.writeFileSync(
    path.join(dir, "usr/sbin/policy-rc.d"),
    "#!/bin/sh\n# No service starts in an image build.\nexit 101\n",
    {
      mode: 0o755,
    },
  );
  fs.writeFileSync(
    path.join(dir, "etc/apt/apt.conf.d/90orderflow-image"),
    'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n',
  );
  for (const sub of ["var/cache/apt/archives", "var/lib/apt/lists"])
    for (const f of fs.readdirSync(path.join(dir, sub)))
      if (f.endsWith(".deb") || f.endsWith("_Packages") || f.endsWith("Release"))
        fs.rmSync(path.join(dir, sub, f));
}

export async function ensureBaseImage(
  release: string,
  docker: Docker,
  layout: ComposeLayout,
  env: { inherited: NodeJS.ProcessEnv; isRoot: boolean },
  log: (m: string) => void,
): Promise<string> {
  const image = baseImage(release);
  if (await imageExists(docker, image)) return image;
  const dir = layout.rootfs(release);
  if (!complete(dir)) {
    if (!env.isRoot) throw new Error(`building ${image} needs debootstrap, which needs root`);
    if (!(await hasCommand("debootstrap", env.inherited)))
      await aptInstall(["debootstrap"], env.inherited, log);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    log(`debootstrap --variant=minbase ${release} (about 2 minutes)`);
    const r = await run(
      "nice",
      ["-n", "10", "debootstrap", "--variant=minbase", release, dir, debianMirror()],
      {
        env: env.inherited,
        timeoutMs: 1_200_000,
      },
    );
    if (r.code !== 0)
      throw new Error(`debootstrap ${release} failed: ${(r.stderr || r.stdout).trim().slice(-1500)}`);
  }
  prepareRootfs(dir);
  log(`importing ${image}`);
  const code = await new Promise<number>((resolve) => {
    const tar = spawn("tar", ["-C", dir, "-c", "."], { stdio: ["ignore", "pipe", "inherit"] });
    const imp = spawn(
      "docker",
      [
        "import",
        "--change",
        `LABEL ${LOCAL_LABEL}=debian-${release}`,
        "--change",
        'CMD ["bash"]',
        "-",
        image,
      ],
      { env: docker.env, stdio: ["pipe", "ignore", "inherit"] },
    );
    tar.stdout.pipe(imp.stdin);
    imp.on("error", () => resolve(127));
    imp.on("exit", (c) => resolve(c ?? 1));
  });
  if (code !== 0) throw new Error(`docker import of ${dir} as ${image} failed (exit ${code})`);
  return image;
}
