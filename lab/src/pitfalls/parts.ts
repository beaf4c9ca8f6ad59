// The parts each pitfall plugs into a service (see @orderflow/service-runtime parts.ts for the seams and
// their defaults). What is not listed keeps its protection.
import type { InboundEvent } from "@orderflow/messaging";
import type { ServiceParts } from "@orderflow/service-runtime";
import { cycleDeadLetters } from "./cycle-dead-letters.ts";
import type { LabEnv } from "./env.ts";
import { fireAndForgetPublisher } from "./fire-and-forget.ts";
import { naiveClaim } from "./naive-claim.ts";
import { NO_BACKOFF, outageAsRefusalPublisher } from "./outage-as-refusal.ts";
import { sweeplessClaim } from "./sweepless-claim.ts";

/** dedup-by-business-id: an order's second message looks like a duplicate of its first. */
const byOrderId = (event: InboundEvent): string => {
  const orderId = (event.payload as { orderId?: unknown }).orderId;
  return typeof orderId === "string" ? orderId : event.envelope.messageId;
};

/**
 * The parts every service gets for the lab's pitfall; {} when none is on. The relay processes get the
 * relay's share of them (relay-main.ts). no-reconciliation and no-archive are not here: the first is the
 * order service's own part (order-main.ts), the second the relay process's archiver switch (variant env).
 */
export function commonLabParts(lab: LabEnv): ServiceParts {
  switch (lab.pitfall) {
    case "dedup-by-business-id":
      return { dedupKey: byOrderId };
    case "no-claim-cas":
      return { claim: naiveClaim };
    case "no-consumer-dedup":
      // No inbox and no Redis early skip: every delivery runs its step.
      return {
        inbox: { claim: async () => true, recorded: async () => undefined },
        dedupCache: () => undefined,
      };
    case "auto-ack":
      // noAck: the broker forgets a message as soon as it has sent it.
      return { ackMode: "auto" };
    case "no-confirms":
      return { relayPublisher: fireAndForgetPublisher };
    case "no-relay-sweep":
      return { claim: sweeplessClaim };
    case "no-backoff":
      return { relayPublisher: outageAsRefusalPublisher, relay: NO_BACKOFF };
    case "dlx-cycle":
      return { settle: cycleDeadLetters };
    default:
      return {};
  }
}
