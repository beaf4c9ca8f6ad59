// The Grafana dashboards (infra/grafana/dashboards/*.json) checked without Grafana, which the local stack
// does not run: each is structurally sound, and every panel's PromQL, with Grafana's variables filled
// in, is answered by the local stack's Prometheus without error. Under a trickle of orders the overview's
// panels also return numbers, so a renamed metric or label cannot leave a panel silently empty.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { requireHealthyStack } from "@orderflow/testkit/stack-fixture.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdApps, openStack, prometheusUrl, releaseApps, repoRoot, type Stack } from "../src/index.ts";

interface Target {
  refId: string;
  expr: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  current?: { value?: string | string[] };
  allValue?: string;
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
}

// Grafana's own placeholder for the data source variable, not a template string.
const TEMPLATED_DS = { type: "prometheus", uid: ["$", "{datasource}"].join("") };

const DIR = path.join(repoRoot, "infra/grafana/dashboards");
const FILES = readdirSync(DIR).filter((f) => f.endsWith(".json"));
const boards: [string, Dashboard][] = FILES.map((f) => [
  f,
  JSON.parse(readFileSync(path.join(DIR, f), "utf8")) as Dashboard,
]);

const allPanels = (d: Dashboard): Panel[] => d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queryPanels = (d: Dashboard) => allPanels(d).filter((p) => p.type !== "row");

/**
 * The expression as Grafana would send it: its interval variables as Grafana computes them for a 5 s
 * scrape ($__rate_interval = max(4 x scrape, interval + scrape)), and the dashboard's own variables.
 */
function substitute(expr: string, d: Dashboard): string {
  const vars: Record<string, string> = {
    __rate_interval: "20s",
    __interval: "5s",
    __interval_ms: "5000",
    __range: "15m",
  };
  for (const v of d.templating.list) {
    if (v.type === "constant") vars[v.name] = String(v.current?.value ?? v.query);
    // A picker: All as its regex (allValue), or the values picked as Grafana joins them for =~.
    if (v.type === "query") {
      const picked = [v.current?.value ?? []].flat();
      vars[v.name] = picked.includes("$__all") ? (v.allValue ?? ".*") : picked.join("|");
    }
  }
  const out = expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string, bare: string) => {
    const name = braced ?? bare;
    return name in vars ? (vars[name] as string) : whole;
  });
  if (/\$\w|\$\{/.test(out)) throw new Error(`unknown variable left in ${out}`);
  return out;
}

interface PromAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

async function instantQuery(base: string, query: string): Promise<PromAnswer> {
  const res = await fetch(`${base}/api/v1/query`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ query }),
  });
  return (await res.json()) as PromAnswer;
}

describe("the dashboards' JSON", () => {
  it("has the five dashboards with unique uids", () => {
    expect(FILES.sort()).toEqual(["inventory.json", "k6.json", "order.json", "overview.json", "points.json"]);
    expect(new Set(boards.map(([, d]) => d.uid)).size).toBe(boards.length);
  });

  it.each(boards)(
    "%s: unique panel ids, panels on the 24-column grid, every query on the templated Prometheus uid",
    (_f, d) => {
      const ids = allPanels(d).map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      const ds = d.templating.list.find((v) => v.type === "datasource");
      expect(ds).toMatchObject({ name: "datasource", query: "prometheus", current: { value: "prometheus" } });
      for (const p of queryPanels(d)) {
        expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
        expect(p.datasource, p.title).toEqual(TEMPLATED_DS);
        expect(p.targets?.length, p.title).toBeGreaterThan(0);
        for (const t of p.targets ?? []) {
          expect(t.datasource, `${p.title} ${t.refId}`).toEqual(TEMPLATED_DS);
          expect(t.expr.trim(), `${p.title} ${t.refId}`).not.toBe("");
        }
      }
    },
  );
});

describe("the k6 dashboard", () => {
  const k6 = boards.find(([f]) => f === "k6.json")?.[1] as Dashboard;

  it("picks runs by their testid, every run by default, and every query reads only the runs picked", () => {
    const testid = k6.templating.list.find((v) => v.name === "testid");
    expect(testid).toMatchObject({ type: "query", allValue: ".*", current: { value: ["$__all"] } });
    expect(JSON.stringify(testid?.query)).toContain("testid");
    const exprs = queryPanels(k6).flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    expect(exprs.filter((e) => !e.includes('testid=~"$testid"'))).toEqual([]);
    // Only what k6's remote-write output writes: every metric it names starts k6_.
    const metrics = exprs.flatMap((e) => [...e.matchAll(/\b([a-z_]+)\{/g)].map((m) => m[1]));
    expect(metrics.filter((m) => !m?.startsWith("k6_"))).toEqual([]);
  });
});

describe("the dashboards' queries against the local Prometheus", () => {
  let stack: Stack;
  let prom: string;
  beforeAll(async () => {
    stack = await requireHealthyStack();
    prom = prometheusUrl(openStack(undefined, false));
    const up = await fetch(`${prom}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (!up) throw new Error(`Prometheus is not answering at ${prom} (is the stack up? \`pnpm stack up\`)`);
  });

  it.each(boards)("%s: every panel's PromQL is answered without error", async (_f, d) => {
    const failures: string[] = [];
    for (const p of queryPanels(d)) {
      for (const t of p.targets ?? []) {
        const query = substitute(t.expr, d);
        const a = await instantQuery(prom, query);
        if (a.status !== "success") failures.push(`${p.title} ${t.refId}: ${a.error} (${query})`);
      }
    }
    expect(failures).toEqual([]);
  });

  describe("under a trickle of orders", () => {
    // A component test (infra/): the services are held stopped while these run; this one needs them.
    beforeAll(async () => {
      await releaseApps(stack);
    }, 180_000);
    afterAll(async () => {
      await holdApps(stack);
    }, 60_000);

    it("the overview's panels return numbers", async () => {
      const overview = boards.find(([f]) => f === "overview.json")?.[1] as Dashboard;
      // Alerts fire only on faults; this test makes none.
      const mayBeEmpty = new Set(["Active alerts"]);
      const order = `http://127.0.0.1:${stack.layout.servicePorts.order}`;
      const inventory = `http://127.0.0.1:${stack.layout.servicePorts.inventory}`;
      const sku = `dash-${randomUUID().slice(0, 8)}`;
      const put = await fetch(`${inventory}/stock/${sku}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ available: 1_000 }),
      });
      expect(put.status).toBe(200);
      // The stack is shared: a service restarted meanwhile (by its supervisor) only delays the data.
      let placed = 0;
      const placeOrder = async () => {
        const r = await fetch(`${order}/orders`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": randomUUID() },
          body: JSON.stringify({ customerId: `dash-${sku}`, lines: [{ sku, quantity: 1, unitPrice: 250 }] }),
        }).catch(() => undefined);
        if (r?.status === 201) placed++;
      };

      // rate() over $__rate_interval needs orders in the last 20 s at two scrapes: keep them coming while waiting.
      let missing: string[] = [];
      const deadline = Date.now() + 90_000;
      for (;;) {
        await placeOrder();
        missing = [];
        for (const p of queryPanels(overview)) {
          if (mayBeEmpty.has(p.title)) continue;
          const answers = await Promise.all(
            (p.targets ?? []).map((t) => instantQuery(prom, substitute(t.expr, overview))),
          );
          const numbers = answers
            .flatMap((a) => a.data?.result ?? [])
            .filter((r) => Number.isFinite(Number(r.value[1])));
          if (numbers.length === 0) missing.push(p.title);
        }
        if (missing.length === 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(placed).toBeGreaterThan(0);
      expect(missing).toEqual([]);
    }, 180_000);
  });
});
