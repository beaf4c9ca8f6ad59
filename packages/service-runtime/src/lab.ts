// The fault lab's switches (load-tests/src/fault): each removes one protection to show, with numbers,
// what it prevents. Set only by the lab through ORDERFLOW_LAB_PITFALL; unset (the default) means every
// protection is on. Deliberately not in .env.example or the services' configuration docs.
import type { LabConsumerPitfalls } from "@orderflow/messaging";
import { optional, type RawEnv } from "./env-parse.ts";

export const LAB_PITFALLS = [
  "publish-before-commit",
  "dedup-by-business-id",
  "no-claim-cas",
  "no-consumer-dedup",
  "auto-ack",
] as const;
export type LabPitfall = (typeof LAB_PITFALLS)[number];

export interface LabSwitches {
  pitfall: LabPitfall | undefined;
  /** Share of order transactions the order service rolls back after their work (0..1). */
  rollbackRate: number;
}

export const NO_LAB: LabSwitches = { pitfall: undefined, rollbackRate: 0 };

export function readLabSwitches(env: RawEnv): LabSwitches {
  const raw = optional(env, "ORDERFLOW_LAB_PITFALL");
  if (raw !== undefined && !(LAB_PITFALLS as readonly string[]).includes(raw))
    throw new Error(`ORDERFLOW_LAB_PITFALL must be one of ${LAB_PITFALLS.join(", ")}, got "${raw}"`);
  const rate = Number(optional(env, "ORDERFLOW_LAB_ROLLBACK_RATE") ?? "0");
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new Error(`ORDERFLOW_LAB_ROLLBACK_RATE must be between 0 and 1, got "${rate}"`);
  return { pitfall: raw as LabPitfall | undefined, rollbackRate: rate };
}

/** The consumer options a pitfall switches off; undefined when no consumer pitfall is on. */
export function labConsumerPitfalls(lab: LabSwitches): LabConsumerPitfalls | undefined {
  switch (lab.pitfall) {
    case "dedup-by-business-id":
      return {
        dedupKey: (ev) => {
          const orderId = (ev.payload as { orderId?: unknown }).orderId;
          return typeof orderId === "string" ? orderId : ev.envelope.messageId;
        },
      };
    case "no-consumer-dedup":
      return { inbox: false };
    case "auto-ack":
      return { autoAck: true };
    default:
      return undefined;
  }
}
