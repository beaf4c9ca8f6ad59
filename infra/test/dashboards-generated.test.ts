// The per-service dashboards are generated from one definition (infra/src/dashboards): the committed JSON,
// which is what Grafana provisions, must be exactly what that definition produces, and the work queue each
// one watches must be a queue the broker is provisioned with.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generatedDashboards } from "../src/dashboards/generate.ts";
import { SERVICE_BOARDS } from "../src/dashboards/service-board.ts";
import { repoRoot } from "../src/env.ts";

const RUN = "run `pnpm dashboards` and commit the files it writes";

describe("the per-service dashboards", () => {
  it.each(generatedDashboards().map((f) => [f.path, f.text] as const))(
    "%s is what its definition generates",
    (rel, text) => {
      const file = path.join(repoRoot, rel);
      expect(existsSync(file), `${rel} is missing: ${RUN}`).toBe(true);
      expect(
        readFileSync(file, "utf8"),
        `${rel} differs from its definition in infra/src/dashboards (edit the definition, not the JSON): ${RUN}`,
      ).toBe(text);
    },
  );

  it("watch work queues and parking lots the broker is provisioned with", () => {
    const definitions = JSON.parse(
      readFileSync(path.join(repoRoot, "infra/rabbitmq/definitions.json"), "utf8"),
    ) as { queues: { name: string }[] };
    const provisioned = new Set(definitions.queues.map((q) => q.name));
    const watched = Object.values(SERVICE_BOARDS).flatMap(({ queue }) => [queue, `${queue}.parking`]);
    expect(watched.filter((q) => !provisioned.has(q))).toEqual([]);
  });
});
