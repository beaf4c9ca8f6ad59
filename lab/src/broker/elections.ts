// Leader elections and the broker's recovery, read from the broker itself. A quorum queue's Raft term
// grows by one with every election its members hold (won or not), so the terms' growth over a run
// counts the elections a fault caused; each node's per-queue metrics hold the terms of its members.
import { brokerHealth, type Stack } from "@orderflow/infra";

/** Each quorum queue's highest Raft term across the nodes that answer (a cut-off node may not). */
export async function raftTerms(s: Stack): Promise<Map<string, number>> {
  const terms = new Map<string, number>();
  await Promise.all(
    s.layout.rabbitmq.nodes.map(async (n) => {
      try {
        const res = await fetch(`http://${n.host}:${n.prometheusPort}/metrics/per-object`, {
          signal: AbortSignal.timeout(3_000),
        });
        if (!res.ok) return;
        for (const m of (await res.text()).matchAll(
          /^rabbitmq_raft_term_total\{[^}]*queue="([^"]+)"[^}]*\} (\d+)/gm,
        )) {
          const [, queue, term] = m as unknown as [string, string, string];
          terms.set(queue, Math.max(terms.get(queue) ?? 0, Number(term)));
        }
      } catch {
        // a paused or unreachable node: the others hold the same queues' terms
      }
    }),
  );
  return terms;
}

/** Elections held between two readings, over the queues read both times. */
export function electionsBetween(before: Map<string, number>, after: Map<string, number>): number {
  let n = 0;
  for (const [q, t] of after) {
    const was = before.get(q);
    if (was !== undefined) n += Math.max(0, t - was);
  }
  return n;
}

/** Waits (bounded) until all three nodes run and every queue has all its members online; ms taken, or null. */
export async function waitBrokerWhole(s: Stack, timeoutMs: number): Promise<number | null> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if ((await brokerHealth(s.rabbit)).healthy) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}
