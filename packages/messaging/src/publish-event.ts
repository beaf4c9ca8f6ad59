// Publishing one event the way every consumer expects it (see @orderflow/contracts' envelope):
// to orderflow.events, routing key = event type, body = payload JSON, confirmed by the broker.
import { amqpProperties, type Envelope } from "@orderflow/contracts";
import type { ConfirmPublisher } from "./confirm-publisher.ts";
import { EXCHANGES } from "./topology.ts";

export function publishEvent(
  publisher: ConfirmPublisher,
  envelope: Envelope,
  payload: unknown,
): Promise<void> {
  return publisher.publish(
    EXCHANGES.events,
    envelope.type,
    Buffer.from(JSON.stringify(payload)),
    amqpProperties(envelope),
  );
}
