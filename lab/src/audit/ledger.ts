// What a run promised: every order the API accepted (2xx), with what it asked for, plus the stock the
// run set. The audit checks the three databases and the broker against exactly this.
export interface LedgerOrder {
  orderId: string;
  idempotencyKey: string;
  customerId: string;
  lines: { sku: string; quantity: number; unitPrice: number }[];
  acceptedAt: number;
}

export interface RunLedger {
  /** Prefix of every SKU and customer id the run used, so leftovers of other runs are not audited. */
  prefix: string;
  initialStock: Record<string, number>;
  orders: LedgerOrder[];
}
