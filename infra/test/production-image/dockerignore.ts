// .dockerignore's rules as `docker build` applies them to a path relative to the build context: each
// pattern is anchored at the context's root (`**` spans folders, `*` and `?` stay within one), a pattern
// that matches a folder excludes everything under it, and the last matching line wins (`!` re-includes).

export interface DockerignoreRule {
  re: RegExp;
  include: boolean;
}

function toRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*" && pattern[i + 1] === "*") {
      const slash = pattern[i + 2] === "/";
      out += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

export function parseDockerignore(text: string): DockerignoreRule[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const include = l.startsWith("!");
      const pattern = (include ? l.slice(1) : l).trim().replace(/^\/+/, "").replace(/\/+$/, "");
      return { re: toRegExp(pattern), include };
    });
}

/** Whether `relPath` (a file or folder, `/`-separated) stays out of the build context. */
export function isDockerIgnored(rules: DockerignoreRule[], relPath: string): boolean {
  const parts = relPath.split("/");
  const selfAndParents = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  let ignored = false;
  for (const rule of rules) {
    if (selfAndParents.some((p) => rule.re.test(p))) ignored = !rule.include;
  }
  return ignored;
}
