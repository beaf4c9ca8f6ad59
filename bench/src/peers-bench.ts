// orderflow's relay beside what a Node user would pick instead, in one run against one stack: the same
// job for each contender (an order and its order.created event in one transaction, published persistent
// with confirms to orderflow.events, routed to a 3-member scratch quorum queue that a plain consumer
// drains), measured as a burn-down of a backlog and at two open-model rates. The seed design runs too,
// as the baseline, not as a peer.
import { amqpUrls } from "@orderflow/infra";
import { OUTBOX_MIGRATIONS_DIR } from "@orderflow/outbox";
import type pg from "pg";
import { postgresRoots } from "./cpu.ts";
import { createOrderflowRelay } from "./orderflow-relay.ts";
import { type Contender, PEER_ORDERS_DDL } from "./peer-contender.ts";
import { outboxTableContender } from "./peer-outbox-table.ts";
import { pgOutboxContender } from "./peer-pg-outbox.ts";
import { pgBossContender } from "./peer-pgboss.ts";
import { type BurnDown, burnDown, type OpenModel, openModel, type RunDeps } from "./peer-runs.ts";
import { cpuPerThousand, PEER_RATES, type PeerRole, type PeerRow, peersSummary } from "./peers-summary.ts";
import { type ScratchCluster, startScratchCluster } from "./scratch-cluster.ts";
import { createScratchDb } from "./scratch-db.ts";
import { createScratchQueue, EXCHANGE } from "./scratch-queue.ts";
import { fmt, type Section, type SectionContext, type SectionResult, type TableRow } from "./section.ts";
import { createSeedRelay } from "./seed-relay.ts";
import { stackProcesses } from "./stack-processes.ts";
import { median } from "./stats.ts";

interface Plan {
  repeats: number;
  /** Backlog per burn-down; the seed's is smaller (its ceiling is below 100 events/s). */
  backlog: number;
  seedBacklog: number;
  /** Time bound of one burn-down. */
  burnDownMaxMs: number;
  latencySeconds: number;
  drainMs: number;
}

const plan = (quick: boolean): Plan =>
  quick
    ? {
        repeats: 2,
        backlog: 10_000,
        seedBacklog: 200,
        burnDownMaxMs: 30_000,
        latencySeconds: 4,
        drainMs: 15_000,
      }
    : {
        repeats: 3,
        backlog: 100_000,
        seedBacklog: 500,
        burnDownMaxMs: 120_000,
        latencySeconds: 10,
        drainMs: 30_000,
      };

interface Entry {
  contender: Contender;
  role: PeerRole;
  burnDowns: BurnDown[];
  latency: Record<string, OpenModel[]>;
  /** Rates not run: the contender's burn-down is below them, so its latency would only grow with the run. */
  skipped: number[];
}

const ORDERFLOW_VERSION = "workspace";

async function contenders(
  ctx: SectionContext,
  deps: { pool: pg.Pool; url: string; routingKey: string; cluster: ScratchCluster | undefined },
  onPgOutboxError: (m: string) => void,
): Promise<{ list: { contender: Contender; role: PeerRole }[]; missing: Record<string, string> }> {
  const urls = amqpUrls(ctx.stack, "order");
  const stackPg = () => postgresRoots(ctx);
  const list: { contender: Contender; role: PeerRole }[] = [
    {
      role: "orderflow",
      contender: outboxTableContender({
        name: "orderflow",
        version: ORDERFLOW_VERSION,
        settings: {
          relay:
            "createRelay + createConfirmPublisher on two confirm channels (the relay process's), defaults, after-commit fast path",
        },
        pool: deps.pool,
        routingKey: deps.routingKey,
        postgresRoots: stackPg,
        makeRelay: () => createOrderflowRelay({ pool: deps.pool, amqpUrls: urls }),
      }),
    },
  ];
  const missing: Record<string, string> = {};
  try {
    list.push({
      role: "peer",
      contender: await pgBossContender({
        url: deps.url,
        pool: deps.pool,
        amqpUrl: urls[0] as string,
        routingKey: deps.routingKey,
        postgresRoots: stackPg,
      }),
    });
  } catch (e) {
    missing["pg-boss"] = (e as Error).message;
  }
  if (deps.cluster) {
    try {
      list.push({
        role: "peer",
        contender: await pgOutboxContender({
          cluster: deps.cluster,
          amqpUrl: urls[0] as string,
          routingKey: deps.routingKey,
          onError: onPgOutboxError,
        }),
      });
    } catch (e) {
      missing["pg-transactional-outbox"] = (e as Error).message;
    }
  }
  list.push({
    role: "baseline",
    contender: outboxTableContender({
      name: "seed design",
      version: ORDERFLOW_VERSION,
      settings: { relay: "scan every 1 s (fixed delay), 100 rows, CAS + awaited confirm + mark per row" },
      pool: deps.pool,
      routingKey: deps.routingKey,
      postgresRoots: stackPg,
      makeRelay: () => createSeedRelay({ pool: deps.pool, amqpUrl: urls[0] as string, exchange: EXCHANGE }),
    }),
  });
  return { list, missing };
}

function toRow(e: Entry): PeerRow {
  const lat = (rate: number) => {
    const runs = e.latency[rate] ?? [];
    if (runs.length === 0) return null;
    return {
      p50Ms: median(runs.map((r) => r.latency.p50)),
      p99Ms: median(runs.map((r) => r.latency.p99)),
      achievedPerSecond: median(runs.map((r) => r.achievedRate)),
    };
  };
  const latency = Object.fromEntries(PEER_RATES.map((r) => [String(r), lat(r)]));
  const cpuSum: Record<string, number> = {};
  let delivered = 0;
  for (const b of e.burnDowns) {
    delivered += b.delivered;
    for (const [k, v] of Object.entries(b.cpuSeconds)) cpuSum[k] = (cpuSum[k] ?? 0) + v;
  }
  const runs = [...e.burnDowns, ...Object.values(e.latency).flat()];
  const top = latency[String(PEER_RATES[PEER_RATES.length - 1])] ?? null;
  return {
    name: e.contender.name,
    version: e.contender.version,
    role: e.role,
    eventsPerSecond: median(e.burnDowns.map((b) => b.eventsPerSecond)),
    p50Ms: top?.p50Ms ?? null,
    p99Ms: top?.p99Ms ?? null,
    latency,
    cpuMsPerThousand: cpuPerThousand(cpuSum, delivered),
    lost: runs.reduce((s, r) => s + r.lost, 0),
    duplicated: runs.reduce((s, r) => s + r.duplicated, 0),
  };
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? "not run" : fmt(v, 1));

/** bench.md's rows: one measure each, every contender named in its cell. */
function tableRows(entries: Entry[], rows: PeerRow[], ratio: number, p: Plan): TableRow[] {
  const each = (f: (r: PeerRow, e: Entry) => string) =>
    rows.map((r, i) => `${r.name} ${f(r, entries[i] as Entry)}`).join("; ");
  const cpu = (r: PeerRow, k: string) => fmt(r.cpuMsPerThousand[k] ?? Number.NaN);
  return [
    {
      measure: `burn-down throughput, events/s (backlog ${fmt(p.backlog)} events; the seed's ${fmt(p.seedBacklog)})`,
      result: each((r) => fmt(r.eventsPerSecond)),
      spread: each((_, e) => {
        const v = e.burnDowns.map((b) => b.eventsPerSecond);
        const cut = e.burnDowns.some((b) => !b.complete) ? " (time bound reached)" : "";
        return `${fmt(Math.min(...v))}-${fmt(Math.max(...v))}${cut}`;
      }),
      kind: "measured",
      note: `median of ${p.repeats}; events delivered to the consumer per second from the contender's start; a run stops at ${fmt(p.burnDownMaxMs / 1000)} s`,
    },
    ...PEER_RATES.map(
      (rate): TableRow => ({
        measure: `commit-to-delivery p50/p99 at ${fmt(rate)} events/s offered, ms`,
        result: each((r) => `${ms(r.latency[String(rate)]?.p50Ms)}/${ms(r.latency[String(rate)]?.p99Ms)}`),
        spread: `business transactions committed per second: ${each((r) => {
          const a = r.latency[String(rate)]?.achievedPerSecond;
          return a === undefined ? "-" : fmt(a);
        })}`,
        kind: "measured",
        note: `${p.latencySeconds} s per run, median of ${p.repeats}; "not run": the contender's burn-down is below the rate; "n/a": over 1% not delivered within ${fmt(p.drainMs / 1000)} s`,
      }),
    ),
    {
      measure: "CPU per 1,000 events over the burn-down, ms: total (bench process + PostgreSQL + broker)",
      result: each((r) => cpu(r, "total")),
      spread: each((r) => `${cpu(r, "bench process")} + ${cpu(r, "postgres")} + ${cpu(r, "rabbitmq")}`),
      kind: "measured",
      note: "the bench process holds the contender and the counting consumer; PostgreSQL is the stack's, for pg-transactional-outbox its scratch cluster",
    },
    {
      measure: "lost/duplicated at the consumer, every run",
      result: each((r) => `${r.lost}/${r.duplicated}`),
      spread: "",
      kind: "measured",
      note: "lost: committed, never delivered, and no longer pending in the contender's store",
    },
    {
      measure: "orderflow / best peer, burn-down throughput",
      result: `${fmt(ratio, 2)}x`,
      spread: "ratio of the medians",
      kind: "derived",
      note: "peers: pg-boss, pg-transactional-outbox; the seed design is the baseline, not a peer",
    },
  ];
}

export const peersSection: Section = {
  name: "peers",
  async run(ctx): Promise<SectionResult> {
    const p = plan(ctx.quick);
    const db = await createScratchDb(ctx.stack, "peers", [OUTBOX_MIGRATIONS_DIR], 16);
    const q = await createScratchQueue(ctx.stack, "peers");
    let cluster: ScratchCluster | undefined;
    const missing: Record<string, string> = {};
    const pgOutboxErrors: string[] = [];
    const list: { contender: Contender; role: PeerRole }[] = [];
    // pg-transactional-outbox's shutdown removes every listener from its replication client before
    // ending it, and its listener's pool has no error listener: a 'Connection terminated' such a client
    // raised after a stop in the middle of a backlog ended a whole run. Recorded here instead, and the
    // counts at the consumer still show whether anything was lost.
    const uncaught: string[] = [];
    const onUncaught = (e: unknown) => {
      const line = e instanceof Error ? `${e.message} (${e.stack?.split("\n")[1]?.trim() ?? ""})` : String(e);
      uncaught.push(line);
      ctx.log(`  uncaught in the bench process, recorded: ${line}`);
    };
    process.on("uncaughtException", onUncaught);
    try {
      await db.pool.query(PEER_ORDERS_DDL);
      try {
        cluster = await startScratchCluster(ctx.stack, ["wal_level=logical"]);
      } catch (e) {
        missing["pg-transactional-outbox"] = `scratch cluster: ${(e as Error).message}`;
      }
      const made = await contenders(
        ctx,
        { pool: db.pool, url: db.url, routingKey: q.routingKey, cluster },
        (m) => pgOutboxErrors.length < 20 && pgOutboxErrors.push(m),
      );
      list.push(...made.list);
      Object.assign(missing, made.missing);
      for (const [name, why] of Object.entries(missing)) ctx.log(`  ${name} left out: ${why}`);
      const deps: RunDeps = { q, rabbitmqRoots: (await stackProcesses(ctx.stack)).underTest.rabbitmq ?? [] };
      const entries: Entry[] = list.map((x) => ({ ...x, burnDowns: [], latency: {}, skipped: [] }));

      // Repeats interleaved, so a slow minute of the machine falls on every contender alike.
      for (let i = 0; i < p.repeats; i++)
        for (const e of entries) {
          const n = e.role === "baseline" ? p.seedBacklog : p.backlog;
          const b = await burnDown(e.contender, n, p.burnDownMaxMs, deps);
          ctx.log(
            `  burn-down ${e.contender.name} #${i + 1}: ${fmt(b.eventsPerSecond)} events/s (${b.delivered}/${n} in ${fmt(b.seconds, 1)} s${b.complete ? "" : ", time bound reached"}; lost ${b.lost}, dup ${b.duplicated})`,
          );
          e.burnDowns.push(b);
        }
      for (const rate of PEER_RATES)
        for (let i = 0; i < p.repeats; i++)
          for (const e of entries) {
            if (median(e.burnDowns.map((b) => b.eventsPerSecond)) < rate) {
              if (!e.skipped.includes(rate)) e.skipped.push(rate);
              continue;
            }
            const r = await openModel(e.contender, rate, p.latencySeconds, p.drainMs, deps);
            ctx.log(
              `  latency ${e.contender.name} @${rate}/s #${i + 1}: p50 ${fmt(r.latency.p50, 1)} ms p99 ${fmt(r.latency.p99, 1)} ms (${r.delivered}/${r.committed} delivered, ${fmt(r.achievedRate)}/s achieved; lost ${r.lost}, dup ${r.duplicated})`,
            );
            e.latency[rate] = [...(e.latency[rate] ?? []), r];
          }
      const rows = entries.map(toRow);
      const summary = peersSummary(rows);
      return {
        title: "Peers: orderflow's relay beside pg-boss and pg-transactional-outbox (and the seed design)",
        rows: tableRows(entries, rows, summary.orderflowOverBestPeer, p),
        data: {
          plan: p,
          settings: Object.fromEntries(entries.map((e) => [e.contender.name, e.contender.settings])),
          leftOut: missing,
          pgOutboxErrors,
          uncaught,
          runs: Object.fromEntries(
            entries.map((e) => [
              e.contender.name,
              { burnDowns: e.burnDowns, latency: e.latency, skipped: e.skipped },
            ]),
          ),
        },
        summary: { ...summary, leftOut: missing },
      };
    } finally {
      for (const { contender } of list) await contender.close().catch(() => {});
      await cluster?.stop();
      process.off("uncaughtException", onUncaught);
      await q.delete();
      await db.drop();
    }
  },
};
