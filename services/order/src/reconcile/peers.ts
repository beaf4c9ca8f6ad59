// What reconciliation asks the other services over HTTP. Reads answer "did you apply it?"; the
// replay-reply calls ask them to re-send (same message id) a reply the order service never received.
import type { EffectsPage } from "@orderflow/service-runtime";

/** The effects that hold something for an order: inventory's RESERVED reservations, points' GRANTED grants. */
export type EffectSource = "inventory" | "points";

export interface EffectsQuery {
  before: string;
  after?: { afterAt: string; afterId: string } | undefined;
  limit: number;
}

export interface Peers {
  /** One page of a peer's holding effects in creation order (see @orderflow/service-runtime effects-page.ts). */
  heldEffects(source: EffectSource, q: EffectsQuery): Promise<EffectsPage>;
  reservation(orderId: string): Promise<{ status: string } | undefined>;
  grant(orderId: string): Promise<{ status: string } | undefined>;
  replayInventoryReply(orderId: string): Promise<void>;
  replayPointsReply(orderId: string): Promise<void>;
  stock(): Promise<{ sku: string; available: number; reserved: number }[]>;
  balances(): Promise<{ customerId: string; balance: number }[]>;
}

class PeerAnswered extends Error {}

/**
 * One request to whichever instance of a peer answers: each base URL in turn, starting with the one that
 * answered last, past any that cannot be reached or fail with 5xx (one instance may be down or
 * restarting). A 404 is an answer (undefined); another 4xx is not the instance's fault and is thrown.
 */
function peerCaller(bases: readonly string[]) {
  let first = 0;
  return async function call<T>(path: string, init: RequestInit = {}): Promise<T | undefined> {
    let lastError: Error = new Error("no base URL");
    for (let k = 0; k < bases.length; k++) {
      const i = (first + k) % bases.length;
      const url = `${bases[i]}${path}`;
      try {
        const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
        if (res.status >= 400 && res.status < 500 && res.status !== 404)
          throw new PeerAnswered(`${init.method ?? "GET"} ${url}: HTTP ${res.status}`);
        if (!res.ok && res.status !== 404)
          throw new Error(`${init.method ?? "GET"} ${url}: HTTP ${res.status}`);
        first = i;
        return res.status === 404 ? undefined : ((await res.json()) as T);
      } catch (e) {
        if (e instanceof PeerAnswered) throw e;
        lastError = e as Error;
      }
    }
    throw lastError;
  };
}

export function httpPeers(inventoryUrls: readonly string[], pointsUrls: readonly string[]): Peers {
  const inventory = peerCaller(inventoryUrls);
  const points = peerCaller(pointsUrls);
  const held = {
    inventory: (q: string) => inventory<EffectsPage>(`/reservations?status=RESERVED${q}`),
    points: (q: string) => points<EffectsPage>(`/grants?status=GRANTED${q}`),
  };
  return {
    heldEffects: async (source, q) => {
      const after = q.after
        ? `&afterAt=${encodeURIComponent(q.after.afterAt)}&afterId=${encodeURIComponent(q.after.afterId)}`
        : "";
      // The peers serve at most 1,000 a page; RECONCILE_BATCH_SIZE has no upper bound of its own.
      const limit = Math.min(q.limit, 1_000);
      return (
        (await held[source](`&before=${encodeURIComponent(q.before)}&limit=${limit}${after}`)) ?? {
          items: [],
          next: null,
        }
      );
    },
    // Ids may come from an orphaned effect, that is from outside: always encoded.
    reservation: (id) => inventory(`/reservations/${encodeURIComponent(id)}`),
    grant: (id) => points(`/grants/${encodeURIComponent(id)}`),
    replayInventoryReply: async (id) =>
      void (await inventory(`/reservations/${encodeURIComponent(id)}/replay-reply`, { method: "POST" })),
    replayPointsReply: async (id) =>
      void (await points(`/grants/${encodeURIComponent(id)}/replay-reply`, { method: "POST" })),
    stock: async () =>
      (await inventory<{ items: { sku: string; available: number; reserved: number }[] }>("/stock"))?.items ??
      [],
    balances: async () =>
      (await points<{ items: { customerId: string; balance: number }[] }>("/points"))?.items ?? [],
  };
}
