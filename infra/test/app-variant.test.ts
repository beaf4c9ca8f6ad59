// The fault lab's seam: the supervisor runs another entry file for an app, with extra environment, under
// the same supervision; `restartAppsWith` restarts only when the variant changes.
import fs from "node:fs";
import path from "node:path";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { appDefinitions } from "../src/apps/definitions.ts";
import { checkVariant, sameVariant } from "../src/apps/variant.ts";
import {
  type AppVariant,
  appsStatus,
  appsVariantInUse,
  repoRoot,
  restartAppsWith,
  type Stack,
  stackLayout,
} from "../src/index.ts";
import { waitFor } from "../src/proc.ts";
import { fakeStack } from "./fake-stack.ts";

const FIXTURE = "infra/test/fixtures/variant-app.ts";
const NAMES = ["order", "relay:order", "inventory", "relay:inventory", "points", "relay:points"];

describe("an app variant, without a stack", () => {
  const layout = stackLayout({ stackDir: "/nonexistent", portOffset: 0 });
  const fake = fakeStack(layout);

  test("runs the entry given for an app, with the variant's env added to each app's own", () => {
    const apps = appDefinitions(fake, { env: { X: "1" }, entries: { "relay:points": FIXTURE } });
    const relay = apps.find((a) => a.name === "relay:points");
    expect(relay?.entry).toBe(FIXTURE);
    expect(relay?.args.at(-1)).toBe(path.join(repoRoot, FIXTURE));
    expect(relay?.env).toMatchObject({ X: "1", OUTBOX_RECONCILE: "off" });
    expect(apps.find((a) => a.name === "points")?.entry).toBe("services/points/src/main.ts");
    expect(apps.find((a) => a.name === "relay:order")?.entry).toBe("packages/outbox/src/relay-main.ts");
  });

  test("compares variants by content, empty parts and key order aside", () => {
    expect(sameVariant({}, { env: {}, entries: {} })).toBe(true);
    expect(sameVariant({ env: { A: "1", B: "2" } }, { env: { B: "2", A: "1" } })).toBe(true);
    expect(sameVariant({ env: { A: "1" } }, { env: { A: "2" } })).toBe(false);
    expect(sameVariant({ entries: { order: FIXTURE } }, {})).toBe(false);
  });

  test("refuses an unknown app, a missing file or a path outside the repository", () => {
    expect(() => checkVariant({ entries: { orders: FIXTURE } }, NAMES)).toThrow('unknown app "orders"');
    expect(() => checkVariant({ entries: { order: "infra/test/fixtures/none.ts" } }, NAMES)).toThrow(
      "does not exist",
    );
    expect(() => checkVariant({ entries: { order: "/etc/passwd" } }, NAMES)).toThrow(
      "repo-relative .ts file",
    );
    expect(() => checkVariant({ entries: { order: "../outside.ts" } }, NAMES)).toThrow(
      "repo-relative .ts file",
    );
    expect(() => checkVariant({ entries: { order: FIXTURE } }, NAMES)).not.toThrow();
  });
});

describe("an app variant on the running stack", () => {
  let s: Stack;
  let apps = false;
  beforeAll(async () => {
    s = await requireHealthyStack();
    apps = (await appsStatus(s)).length > 0; // not with `stack up --no-apps`
  });
  afterAll(async () => {
    if (apps) await restartAppsWith(s, {});
  }, 300_000);

  test("restartAppsWith runs the variant's entry under the same supervision, then production again", async (ctx) => {
    if (!apps) ctx.skip();
    const marker = `v${Date.now()}`;
    const variant: AppVariant = {
      env: { ORDERFLOW_TEST_VARIANT: marker },
      entries: { "relay:points": FIXTURE },
    };
    await expect(restartAppsWith(s, { entries: { nope: FIXTURE } })).rejects.toThrow('unknown app "nope"');

    // One of each, whatever an earlier run left (`--replicas`).
    expect(await restartAppsWith(s, variant, 1)).toBe(true);
    expect(sameVariant(appsVariantInUse(s), variant)).toBe(true);
    const status = await appsStatus(s);
    expect(status.map((a) => a.name).sort()).toEqual([...NAMES].sort());
    expect(status.every((a) => a.healthy)).toBe(true);
    // A relay counts as running once its process is; the stand-in prints once tsx has loaded it.
    const logFile = path.join(s.layout.stackDir, "apps", "relay-points.log");
    await waitFor(
      "the stand-in relay's line",
      () => fs.readFileSync(logFile, "utf8").includes(`variant-app ${marker} with OUTBOX_DATABASE_URL`),
      { timeoutMs: 30_000, intervalMs: 200 },
    );

    // The same variant again: nothing restarts.
    const pids = status.map((a) => a.pid);
    expect(
      await restartAppsWith(s, {
        entries: { "relay:points": FIXTURE },
        env: { ORDERFLOW_TEST_VARIANT: marker },
      }),
    ).toBe(false);
    expect((await appsStatus(s)).map((a) => a.pid)).toEqual(pids);

    expect(await restartAppsWith(s, {})).toBe(true);
    expect(appsVariantInUse(s)).toEqual({});
    expect((await appsStatus(s)).every((a) => a.healthy)).toBe(true);
  }, 600_000);
});
