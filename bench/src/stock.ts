// The saga's SKUs with a stock that no bench run exhausts (the happy path only).
import { SKUS } from "./tx-shapes.ts";

export async function seedStock(inventoryUrl: string): Promise<void> {
  for (const sku of SKUS) {
    const r = await fetch(`${inventoryUrl}/stock/${sku}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ available: 1_000_000_000 }),
    });
    if (!r.ok) throw new Error(`PUT /stock/${sku}: ${r.status} ${await r.text()}`);
  }
}
