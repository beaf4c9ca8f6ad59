// Reads the repo's Dockerfile as its tests need it: the stages, each with its base image and its
// instructions (continuation lines joined, comments dropped), and what a stage's ENV and CMD say.
// Enough of Docker's syntax for this Dockerfile, not all of it: anything else is refused by name.

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#")) continue; // Docker drops comment lines, even inside a continuation
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = `${pending}${line}`.trim();
    pending = "";
    if (whole) lines.push(whole);
  }
  if (pending.trim()) lines.push(pending.trim());
  return lines;
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const m = /^(\w+)\s+([\s\S]+)$/.exec(line);
    if (!m?.[1] || !m[2]) throw new Error(`Dockerfile: an instruction without arguments: ${line}`);
    const keyword = m[1].toUpperCase();
    const args = m[2].trim();
    if (keyword === "FROM") {
      const f = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!f?.[1]) throw new Error(`Dockerfile: cannot read the FROM line: ${line}`);
      stages.push({ from: f[1], ...(f[2] ? { name: f[2] } : {}), instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) {
      if (keyword === "ARG") continue; // an ARG before the first FROM only parameterises FROM lines
      throw new Error(`Dockerfile: ${keyword} before the first FROM`);
    }
    stage.instructions.push({ keyword, args });
  }
  return stages;
}

/** The variables a stage's ENV instructions set (`KEY=value` pairs; a value may be double-quoted). */
export function stageEnv(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { keyword, args } of stage.instructions) {
    if (keyword !== "ENV") continue;
    if (!args.includes("=")) throw new Error(`Dockerfile: write ENV as KEY=value, got: ENV ${args}`);
    for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      const [, key, value] = m;
      if (key !== undefined && value !== undefined)
        env[key] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
    }
  }
  return env;
}

/** The stage's last CMD, which must be in exec form (a JSON array of strings). */
export function stageCmd(stage: Stage): string[] {
  const cmd = stage.instructions.filter((i) => i.keyword === "CMD").at(-1);
  if (!cmd) throw new Error(`Dockerfile: stage ${stage.name ?? stage.from} has no CMD`);
  const parsed: unknown = JSON.parse(cmd.args);
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string"))
    throw new Error(`Dockerfile: CMD must be a JSON array of strings, got: ${cmd.args}`);
  return parsed;
}

/** "24.21.0" from "node:24.21.0-bookworm-slim"; undefined when the tag pins no major.minor version. */
export function nodeVersionOf(image: string): string | undefined {
  return /^(?:docker\.io\/)?(?:library\/)?node:(\d+\.\d+(?:\.\d+)?)-/.exec(image)?.[1];
}
