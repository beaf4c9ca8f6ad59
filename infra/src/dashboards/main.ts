// `pnpm dashboards`: writes the generated Grafana dashboards over the committed ones, and names those
// that changed (none, when the definition and the files already agree).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../env.ts";
import { generatedDashboards } from "./generate.ts";

const current = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

for (const { path: rel, text } of generatedDashboards()) {
  const file = path.join(repoRoot, rel);
  if (current(file) === text) {
    console.log(`unchanged ${rel}`);
    continue;
  }
  writeFileSync(file, text);
  console.log(`wrote     ${rel}`);
}
