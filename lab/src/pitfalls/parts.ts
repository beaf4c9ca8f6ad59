// The parts each pitfall plugs into a service (see @orderflow/service-runtime parts.ts for the seams and
// their defaults). What is not listed keeps its protection.
import type { InboundEvent } from "@orderflow/messaging";
import type { ServiceParts } from "@orderflow/service-runtime";
import { ackOnArrival } from "./ack-on-arrival.ts";
import { cycleDeadLetters } from "./cycle-dead-letters.ts";
import type { LabEnv } from "./env.ts";
import { fireAndForgetPublisher } from "./fire-and-forget.ts";
import { naiveClaim } from "./naive-claim.ts";
import { NO_BACKOFF, outageAsRefusalPublisher } from "./outage-as-refusal.ts";
import { sweeplessClaim } from "./sweepless-claim.ts";
import { turnlessInbox } from "./turnless-inbox.ts";
import { unorderedClaim } from "./unordered-claim.ts";

/** dedup-by-business-id: an order's second message looks like a duplicate of its first. */
const byOrderId = (event: InboundEvent): string => {
  const orderId = (event.payload as { orderId?: unknown }).orderId;
  return typeof orderId === "string" ? orderId : event.envelope.messageId;
};

/**
 * The parts every service gets for the lab's pitfall; {} when none is on. The relay processes get the
 * relay's share of them (relay-main.ts). publish-before-commit, no-reconciliation and no-archive are not
 * here: the first two are the order service's own parts (order-main.ts), the third the relay process's
 * archiver switch (variant env).
 */
export function commonLabParts(lab: LabEnv): ServiceParts {
  switch (lab.pitfall) {
    case "dedup-by-business-id":
      return { consumer: { dedupKey: byOrderId } };
    case "no-claim-cas":
      return { relay: { claim: naiveClaim } };
    case "no-consumer-dedup":
      // No inbox and no Redis early skip: every delivery runs its step.
      return {
        consumer: {
          inbox: { claim: async () => true, recorded: async () => undefined, takeTurn: async () => "apply" },
          dedupCache: () => undefined,
        },
      };
    case "auto-ack":
      // Acked as it arrives: the broker forgets a message as soon as it has sent it.
      return { consumer: { settle: ackOnArrival } };
    case "no-confirms":
      return { relay: { publisher: fireAndForgetPublisher } };
    case "no-relay-sweep":
      return { relay: { claim: sweeplessClaim } };
    case "no-backoff":
      return { relay: { publisher: outageAsRefusalPublisher, config: NO_BACKOFF } };
    case "dlx-cycle":
      return { consumer: { settle: cycleDeadLetters } };
    case "no-ordering":
      return { relay: { claim: unorderedClaim }, consumer: { inbox: turnlessInbox } };
    default:
      return {};
  }
}
