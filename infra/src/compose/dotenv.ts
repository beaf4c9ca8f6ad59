// The project's .env, read and checked before compose sees it: compose's own message for a bad secret
// comes late (from the check-env container) or not at all (a URL that breaks at run time).
import fs from "node:fs";
import path from "node:path";

/** The secret rule of infra/compose/check-secrets.sh, which check-env applies inside the stack. */
export const SECRET_RULE = "16-128 characters from A-Z a-z 0-9 . _ ~ -, not starting with '-'";
const SECRET = /^(?!-)[A-Za-z0-9._~-]{16,128}$/;
/** ADMIN_TOKEN goes into no URL; the services accept 16-256 printable characters (packages/config token()). */
const ADMIN_TOKEN = /^[\x21-\x7E]{16,256}$/;

export class EnvFileError extends Error {}

/** KEY=VALUE lines; # comments and blank lines skipped; one pair of surrounding quotes removed. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const value = (m[2] ?? "").replace(/^(['"])(.*)\1$/, "$2");
    out[m[1] as string] = value;
  }
  return out;
}

/** What is wrong with one variable's value, or undefined. */
export function variableProblem(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === "") return `${name} is empty or not set`;
  if (name === "ADMIN_TOKEN")
    return ADMIN_TOKEN.test(value) ? undefined : `${name} must be 16-256 printable characters without spaces`;
  return SECRET.test(value) ? undefined : `${name} must be ${SECRET_RULE}`;
}

/** The .env values, or an EnvFileError naming every missing or invalid variable. */
export function readEnvFile(repoRoot: string, required: string[]): Record<string, string> {
  const file = path.join(repoRoot, ".env");
  if (!fs.existsSync(file))
    throw new EnvFileError(
      `${file} does not exist: create it with \`pnpm env:init\` (generated secrets), or copy .env.example and fill in ${required.join(", ")}`,
    );
  const values = parseDotenv(fs.readFileSync(file, "utf8"));
  const problems = required.flatMap((n) => variableProblem(n, values[n]) ?? []);
  if (problems.length)
    throw new EnvFileError(
      `.env: ${problems.join("; ")} (generate a secret with \`openssl rand -hex 24\`; see .env.example)`,
    );
  return values;
}
