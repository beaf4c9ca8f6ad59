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

async function call<T>(url: string, init: RequestInit = {}): Promise<T | undefined> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export function httpPeers(inventoryUrl: string, pointsUrl: string): Peers {
  const held = {
    inventory: `${inventoryUrl}/reservations?status=RESERVED`,
    points: `${pointsUrl}/grants?status=GRANTED`,
  };
  return {
    heldEffects: async (source, q) => {
      const after = q.after
        ? `&afterAt=${encodeURIComponent(q.after.afterAt)}&afterId=${encodeURIComponent(q.after.afterId)}`
        : "";
      // The peers serve at most 1,000 a page; RECONCILE_BATCH_SIZE has no upper bound of its own.
      const limit = Math.min(q.limit, 1_000);
      const url = `${held[source]}&before=${encodeURIComponent(q.before)}&limit=${limit}${after}`;
      return (await call<EffectsPage>(url)) ?? { items: [], next: null };
    },
    // Ids may come from an orphaned effect, that is from outside: always encoded.
    reservation: (id) => call(`${inventoryUrl}/reservations/${encodeURIComponent(id)}`),
    grant: (id) => call(`${pointsUrl}/grants/${encodeURIComponent(id)}`),
    replayInventoryReply: async (id) =>
      void (await call(`${inventoryUrl}/reservations/${encodeURIComponent(id)}/replay-reply`, {
        method: "POST",
      })),
    replayPointsReply: async (id) =>
      void (await call(`${pointsUrl}/grants/${encodeURIComponent(id)}/replay-reply`, { method: "POST" })),
    stock: async () =>
      (await call<{ items: { sku: string; available: number; reserved: number }[] }>(`${inventoryUrl}/stock`))
        ?.items ?? [],
    balances: async () =>
      (await call<{ items: { customerId: string; balance: number }[] }>(`${pointsUrl}/points`))?.items ?? [],
  };
}
