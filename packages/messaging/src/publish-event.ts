// Publishing one event the way every consumer expects it (see @orderflow/contracts' envelope):
// to orderflow.events, routing key = event type, body = payload JSON, confirmed by the broker.
import { amqpProperties, type Envelope } from "@orderflow/contracts";
import type { ConfirmPublisher } from "./publisher-types.ts";
import { EXCHANGES } from "./topology.ts";

export function publishEvent(
  publisher: ConfirmPublisher,
  envelope: Envelope,
  payload: unknown,
): Promise<void> {
  return publisher.publish({
    exchange: EXCHANGES.events,
    routingKey: envelope.type,
    body: Buffer.from(JSON.stringify(payload)),
    properties: amqpProperties(envelope),
  });
}
