// The broker's management API in compose, asked of whichever node answers: which node leads a quorum
// queue (leader:QUEUE; the local stack asks rabbitmq-queues, the control container has no broker CLI)
// and the queues' depths and consumers (the flow).
import { BROKER_VHOST, readDefinitions } from "@orderflow/infra";
import { FaultRequestError } from "./book.ts";

interface ManagementEndpoint {
  base: string;
  authorization: string;
}

/**
 * The URLs carry the admin's user and password (http://user:pass@rabbitmq-1:15672); fetch refuses a URL
 * with credentials, so they become a Basic authorization header and the base URL is kept without them.
 */
export function managementEndpoints(urls: string[]): ManagementEndpoint[] {
  return urls.map((raw) => {
    const u = new URL(raw);
    const auth = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    u.username = "";
    u.password = "";
    return {
      base: u.toString().replace(/\/+$/, ""),
      authorization: `Basic ${Buffer.from(auth).toString("base64")}`,
    };
  });
}

/** A lookup from a queue's name to N of the node rabbit@rabbitmq-N leading it now. */
export function createLeaderLookup(
  urls: string[],
  timeoutMs = 5_000,
  queues: () => string[] = () => readDefinitions().queues.map((q) => q.name),
): (queue: string) => Promise<number> {
  const endpoints = managementEndpoints(urls);
  return async (queue) => {
    const known = queues();
    if (!known.includes(queue))
      throw new FaultRequestError(400, `unknown queue "${queue}"; queues: ${known.join(", ")}`);
    const problems: string[] = [];
    for (const e of endpoints) {
      try {
        const res = await fetch(
          `${e.base}/api/queues/${encodeURIComponent(BROKER_VHOST)}/${encodeURIComponent(queue)}`,
          { headers: { authorization: e.authorization }, signal: AbortSignal.timeout(timeoutMs) },
        );
        if (!res.ok) {
          problems.push(`${e.base}: HTTP ${res.status}`);
          continue;
        }
        const q = (await res.json()) as { leader?: string; node?: string };
        const m = /@rabbitmq-(\d+)$/.exec(q.leader ?? q.node ?? "");
        if (m) return Number(m[1]);
        problems.push(`${e.base}: no leader reported`);
      } catch (err) {
        problems.push(`${e.base}: ${(err as Error).message}`);
      }
    }
    if (endpoints.length === 0)
      problems.push("no management URL configured (CONTROL_RABBITMQ_MANAGEMENT_URL)");
    throw new FaultRequestError(409, `no leader of ${queue} to act on: ${problems.join("; ")}`);
  };
}

export interface QueueDepth {
  name: string;
  messages: number;
  consumers: number;
  /** The node index of its leader (rabbit@rabbitmq-N), when the management API reports one. */
  leader: number | undefined;
}

const nodeIndex = (node: string | undefined): number | undefined => {
  const m = /@rabbitmq-(\d+)$/.exec(node ?? "");
  return m ? Number(m[1]) : undefined;
};

/** The queues of the vhost with their depth and consumer count, from the first node that answers. */
export function createQueueLister(urls: string[], timeoutMs = 1_500): () => Promise<QueueDepth[]> {
  const endpoints = managementEndpoints(urls);
  return async () => {
    let last: unknown = new Error("no management URL configured (CONTROL_RABBITMQ_MANAGEMENT_URL)");
    for (const e of endpoints) {
      try {
        const res = await fetch(`${e.base}/api/queues/${encodeURIComponent(BROKER_VHOST)}`, {
          headers: { authorization: e.authorization },
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!res.ok) throw new Error(`${e.base}: HTTP ${res.status}`);
        const qs = (await res.json()) as {
          name: string;
          messages?: number;
          consumers?: number;
          leader?: string;
          node?: string;
        }[];
        return qs.map((q) => ({
          name: q.name,
          messages: q.messages ?? 0,
          consumers: q.consumers ?? 0,
          leader: nodeIndex(q.leader ?? q.node),
        }));
      } catch (err) {
        last = err;
      }
    }
    throw last;
  };
}
