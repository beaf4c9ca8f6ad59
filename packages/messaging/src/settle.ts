// Recording the fate of a delivery: note its arrival in its channel's ack ledger, ack it, give it back to
// the broker, move it to a retry tier or to the parking lot (both with a confirm BEFORE the ack, so a
// message is never in neither place). Acks go out only after the commit: a crash before it redelivers.

export type { Delivery, RetryPlan, Settle } from "./consumer-types.ts";

import type { Channel } from "amqplib";
import type { AckLedger } from "./ack-ledger.ts";
import type { Delivery, Outcome, Settle } from "./consumer-types.ts";
import type { ConfirmPublisher } from "./publisher-types.ts";
import { parkTo, retryTo } from "./republish.ts";

export interface SettleDeps {
  queue: string;
  consumerName: string;
  /** Confirm publisher for retries and parking. */
  publisher: ConfirmPublisher;
  report: (o: Outcome) => void;
  /** The channel's ack ledger (acks go out with `multiple` once every earlier delivery is settled). */
  ledger: (ch: Channel) => AckLedger;
}

export function createSettle(deps: SettleDeps): Settle {
  const ack = (d: Delivery): void => deps.ledger(d.ch).ack(d.msg);
  const requeue = (d: Delivery, error: string): void => {
    deps.report({ kind: "requeued", messageId: d.msg.properties.messageId, error });
    try {
      // reject, not nack: from RabbitMQ 4.3 only a reject counts toward x-delivery-limit (rabbitmq-server
      // #15387), and the limit is what parks a message that keeps failing. On 3.10 both count.
      d.ch.reject(d.msg, true);
    } catch {}
    deps.ledger(d.ch).settledElsewhere(d.msg);
  };
  return {
    received: (ch, msg) => deps.ledger(ch).delivered(msg),
    ack,
    requeue,
    async park(d, reason, detail) {
      try {
        await parkTo(deps.publisher, deps.queue, deps.consumerName, d.msg, reason, detail);
      } catch (e) {
        // Not parked: give it back to the broker (counts toward x-delivery-limit, whose dead-letter target
        // is the same parking lot).
        d.log.error({ reason, error: (e as Error).message }, "consumer.park_failed_requeued");
        return requeue(d, (e as Error).message);
      }
      d.log.warn({ reason, detail }, "consumer.parked");
      deps.report({ kind: "parked", messageId: d.msg.properties.messageId, reason, detail });
      ack(d);
    },
    async retry(d, p) {
      try {
        await retryTo(deps.publisher, deps.queue, d.msg, p.tier, p.attempt, p.error, p.headers);
      } catch (pe) {
        d.log.error({ error: (pe as Error).message }, "consumer.retry_failed_requeued");
        return requeue(d, (pe as Error).message);
      }
      const { type, messageId, tier, attempt, error, infrastructure } = p;
      deps.report({ kind: "retried", messageId, type, tier, attempt, error, infrastructure });
      ack(d);
    },
  };
}
