// Samples, once a second while a scenario runs, what the report charts beside the load: each
// service's outbox backlog (rows pending or sent-awaiting-reply) and each work queue's depth. A sample
// that fails (the database restarting, the broker down) is skipped, so the gap shows on the chart.
import { adminUrl, databaseName, listQueues, SERVICE_NAMES, type Stack } from "@orderflow/infra";
import type { ExtraSeries } from "@orderflow/load/report/derive.ts";
import pg from "pg";

export interface Sampler {
  /** True once every series' latest sample is back at zero (the backlog drained). */
  drained(): boolean;
  stop(): Promise<ExtraSeries[]>;
}

export const WORK_QUEUES = ["inventory.order-events", "points.order-events", "order.saga-replies"];

export function startSampler(s: Stack, sinceMs: () => number, onSample?: (line: string) => void): Sampler {
  const series = new Map<string, ExtraSeries>();
  const add = (name: string, chart: string, atMs: number, value: number) => {
    const sr = series.get(name) ?? {
      name,
      chart,
      unit: chart === "Outbox backlog" ? "rows" : "messages",
      points: [],
    };
    sr.points.push({ atMs, value });
    series.set(name, sr);
  };
  const pools = Object.fromEntries(
    SERVICE_NAMES.map((svc) => {
      const pool = new pg.Pool({ connectionString: adminUrl(s.pg, databaseName(svc)), max: 1 });
      pool.on("error", () => {}); // a restart of PostgreSQL ends idle connections; the next query reconnects
      return [svc, pool];
    }),
  );

  async function sample(): Promise<void> {
    const atMs = sinceMs();
    const parts: string[] = [];
    await Promise.all(
      SERVICE_NAMES.map(async (svc) => {
        try {
          const r = await pools[svc]?.query<{ n: string }>(
            "SELECT count(*) AS n FROM outbox WHERE status IN (0, 1)",
          );
          const n = Number(r?.rows[0]?.n ?? 0);
          add(`outbox ${svc}`, "Outbox backlog", atMs, n);
          parts.push(`outbox ${svc} ${n}`);
        } catch {}
      }),
    );
    try {
      const queues = await listQueues(s.rabbit);
      for (const q of queues.filter((x) => WORK_QUEUES.includes(x.name))) {
        add(q.name, "Queue depth", atMs, q.messages);
        parts.push(`${q.name} ${q.messages}`);
      }
    } catch {}
    onSample?.(parts.join(", "));
  }

  let running = true;
  const loop = (async () => {
    while (running) {
      const next = Date.now() + 1_000;
      await sample();
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();

  return {
    drained: () => [...series.values()].every((sr) => (sr.points.at(-1)?.value ?? 0) === 0),
    async stop() {
      running = false;
      await loop;
      await Promise.all(Object.values(pools).map((p) => p.end().catch(() => {})));
      return [...series.values()];
    },
  };
}
