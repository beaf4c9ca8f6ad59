// `pnpm env:init`: writes .env with a generated secret for every variable docker-compose.yml requires,
// and never overwrites an existing .env (its passwords are baked into the stack's volumes).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "../env.ts";
import { readProject, requiredVariables } from "./project.ts";

/** 48 hex characters: inside every rule of .env.example (URL-safe, no leading '-'). */
export const generateSecret = (): string => randomBytes(24).toString("hex");

export function envFileText(names: string[], secret = generateSecret): string {
  const lines = names.map((n) => `${n}=${secret()}`);
  return `# Written by \`pnpm env:init\`: one generated secret per variable docker-compose.yml requires
# (.env.example says what each is). PostgreSQL, RabbitMQ and Grafana keep the passwords of their first
# start in their volumes: change one here only together with the service (see .env.example).
${lines.join("\n")}
`;
}

/** Writes <root>/.env; throws when one exists. Returns its path. */
export function initEnvFile(root: string): string {
  const file = path.join(root, ".env");
  const text = envFileText(requiredVariables(readProject(root)));
  try {
    // "wx": fails if the file exists, so an existing .env is never replaced, even by a concurrent run.
    fs.writeFileSync(file, text, { flag: "wx", mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new Error(
        `${file} exists already; it is left as it is (delete it first to generate new secrets)`,
      );
    throw e;
  }
  return file;
}

export function main(): number {
  try {
    const file = initEnvFile(repoRoot);
    process.stdout.write(`wrote ${file} (generated secrets; mode 600)\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  }
}
