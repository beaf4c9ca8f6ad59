// What reconciliation asks the other services over HTTP. Reads answer "did you apply it?"; the
// replay-reply calls ask them to re-send (same message id) a reply the order service never received.
export interface Peers {
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
  return {
    reservation: (id) => call(`${inventoryUrl}/reservations/${id}`),
    grant: (id) => call(`${pointsUrl}/grants/${id}`),
    replayInventoryReply: async (id) =>
      void (await call(`${inventoryUrl}/reservations/${id}/replay-reply`, { method: "POST" })),
    replayPointsReply: async (id) =>
      void (await call(`${pointsUrl}/grants/${id}/replay-reply`, { method: "POST" })),
    stock: async () =>
      (await call<{ items: { sku: string; available: number; reserved: number }[] }>(`${inventoryUrl}/stock`))
        ?.items ?? [],
    balances: async () =>
      (await call<{ items: { customerId: string; balance: number }[] }>(`${pointsUrl}/points`))?.items ?? [],
  };
}
