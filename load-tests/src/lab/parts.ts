// The parts each pitfall plugs into a service (see @orderflow/service-runtime parts.ts for the seams and
// their defaults). What is not listed keeps its protection.
import type { SqlTx } from "@orderflow/db";
import type { InboundEvent } from "@orderflow/messaging";
import type { ServiceParts } from "@orderflow/service-runtime";
import type { LabEnv } from "./env.ts";
import { naiveClaim } from "./naive-claim.ts";

/** dedup-by-business-id: an order's second message looks like a duplicate of its first. */
const byOrderId = (event: InboundEvent): string => {
  const orderId = (event.payload as { orderId?: unknown }).orderId;
  return typeof orderId === "string" ? orderId : event.envelope.messageId;
};

/** The parts every service (and its relay) gets for the lab's pitfall; {} when none is on. */
export function commonLabParts<Tx extends SqlTx>(lab: LabEnv): ServiceParts<Tx> {
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
    default:
      return {};
  }
}
