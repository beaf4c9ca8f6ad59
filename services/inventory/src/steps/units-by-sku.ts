/** An order's lines as units per SKU: the same SKU on several lines counts once, quantities added. */
export function unitsBySku(lines: { sku: string; quantity: number }[]): { sku: string; quantity: number }[] {
  const m = new Map<string, number>();
  for (const l of lines) m.set(l.sku, (m.get(l.sku) ?? 0) + l.quantity);
  // Sorted: every transaction locks stock rows in the same order, so two orders cannot deadlock.
  return [...m].map(([sku, quantity]) => ({ sku, quantity })).sort((a, b) => (a.sku < b.sku ? -1 : 1));
}
