// The well-known outbox and consumer pitfalls the lab can switch on, one protection removed each. Production code knows
// none of them: the lab composes services with other parts (parts.ts) and runs them from its own entry
// files (*-main.ts), which the stack's supervisor starts instead of the services' own.
export const LAB_PITFALLS = [
  "publish-before-commit",
  "dedup-by-business-id",
  "no-claim-cas",
  "no-consumer-dedup",
  "auto-ack",
  "no-confirms",
  "no-relay-sweep",
  "no-backoff",
  "no-reconciliation",
  "no-archive",
  "dlx-cycle",
  "no-ordering",
] as const;
export type LabPitfall = (typeof LAB_PITFALLS)[number];
