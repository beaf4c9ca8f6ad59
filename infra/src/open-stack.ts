// A handle on the local stack: its layout, secrets and what each part needs. Every other module takes
// one; nothing here starts or stops anything.

import fs from "node:fs";
import { postgresBinDir } from "./debian-packages.ts";
import { type InfraEnv, readInfraEnv } from "./env.ts";
import { type Layout, netnsMarkerFile, stackLayout } from "./layout.ts";
import type { PostgresDeps } from "./postgres.ts";
import type { RabbitDeps } from "./rabbitmq.ts";
import { loadOrCreateSecrets, readSecrets, type StackSecrets } from "./secrets.ts";

export interface Stack {
  env: InfraEnv;
  layout: Layout;
  secrets: StackSecrets;
  pg: PostgresDeps;
  rabbit: RabbitDeps;
}

/** Whether the stack's broker nodes run in namespaces of their own (`up --netns` left its marker). */
export const runsInNamespaces = (env: Pick<InfraEnv, "stackDir">) =>
  fs.existsSync(netnsMarkerFile(env.stackDir));

/** Resolves the stack's layout and secrets (creating the secrets on first use). */
export function openStack(env: InfraEnv = readInfraEnv(), create = true): Stack {
  const layout = stackLayout(env, { netns: runsInNamespaces(env) });
  const secrets = create ? loadOrCreateSecrets(layout.secretsFile) : readSecrets(layout.secretsFile);
  if (!secrets) throw new Error(`no stack at ${layout.stackDir}: run \`pnpm stack up\` first`);
  const pgBin = postgresBinDir(env.postgresBinDir) ?? "/usr/lib/postgresql/15/bin";
  return {
    env,
    layout,
    secrets,
    pg: { layout, secrets, binDir: pgBin, isRoot: env.isRoot },
    rabbit: { layout, secrets, binDir: env.rabbitmqBinDir },
  };
}
