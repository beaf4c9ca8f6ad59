// Poison: malformed and unknown messages published straight into the work queues as the broker admin,
// as no producer of ours would send them. Shared by the poison-messages scenario and the control
// service's `publish-poison` fault, so both inject exactly the same four messages.
import { amqpUrls, type ChaosEvent, infrastructureParts, type Stack } from "@orderflow/infra";
import { type OutgoingMessage, withConfirmedPublisher } from "@orderflow/testkit/publisher.ts";
import type amqp from "amqplib";
import { type FaultAction, FaultRequestError } from "./book.ts";
import type { DockerFaultAction } from "./docker-actions.ts";

interface Poison {
  reason: string;
  content: string;
  options: amqp.Options.Publish;
}

const poisons = (tag: string): Poison[] => [
  {
    reason: "malformed-json",
    content: "{not json",
    options: { messageId: `${tag}-bad-json`, type: "order.created" },
  },
  { reason: "unknown-type", content: "{}", options: { messageId: `${tag}-unknown`, type: "order.exploded" } },
  {
    reason: "unsupported-version",
    content: JSON.stringify({ orderId: "x" }),
    options: { messageId: `${tag}-v99`, type: "order.created", headers: { "x-schema-version": 99 } },
  },
  { reason: "missing-message-id", content: "{}", options: { type: "order.created" } },
];

/** The work queues that consume order events: each must park every poison with its reason. */
export const POISON_QUEUES = ["inventory.order-events", "points.order-events"] as const;
export const POISONS_PER_QUEUE = 4;

/** Publishes the four poisons into each queue (default: both work queues); returns how many. */
export function publishPoison(
  s: Stack,
  tag: string,
  queues: readonly string[] = POISON_QUEUES,
): Promise<number> {
  return publishPoisonTo(amqpUrls(s, "admin"), tag, queues);
}

/** The same, over the broker admin's AMQP URLs (compose's node names), tried in turn. */
export async function publishPoisonTo(
  urls: readonly string[],
  tag: string,
  queues: readonly string[] = POISON_QUEUES,
): Promise<number> {
  // Straight into each queue through the default exchange; a poison without a message id goes out
  // without one (the publisher leaves an empty id off).
  const messages: OutgoingMessage[] = queues.flatMap((q) =>
    poisons(`${tag}-${q}`).map((p) => ({
      exchange: "",
      routingKey: q,
      body: Buffer.from(p.content),
      properties: {
        persistent: true,
        contentType: "application/json",
        ...p.options,
        messageId: p.options.messageId ?? "",
      },
    })),
  );
  // The publisher fails over to the next node: one node down must not stop the injection.
  await withConfirmedPublisher(urls, (pub) => pub.publishAll(messages), {
    name: "fault lab: publish-poison",
    connectTimeoutMs: 10_000,
  });
  return messages.length;
}

const USAGE = `publish-poison <${POISON_QUEUES.join("|")}|all>  malformed and unknown messages into work queues`;
const TARGET = `<${POISON_QUEUES.join("|")}|all>`;

/** The queues a target names; 400 for any other. */
function poisonQueues(target: string): string[] {
  const queues =
    target === "all"
      ? [...POISON_QUEUES]
      : (POISON_QUEUES as readonly string[]).includes(target)
        ? [target]
        : [];
  if (queues.length === 0)
    throw new FaultRequestError(
      400,
      `unknown work queue "${target}"; publish-poison takes ${POISON_QUEUES.join(", ")} or all`,
    );
  return queues;
}

function poisonFault(urls: readonly string[], target: string, queues: string[]) {
  return {
    // Publishing twice at once is harmless: nothing to hold.
    holds: [],
    run: async (): Promise<ChaosEvent> => {
      const startedAt = new Date().toISOString();
      const published = await publishPoisonTo(urls, `poison-${Date.now().toString(36)}`, queues);
      return {
        action: "publish-poison",
        target,
        startedAt,
        finishedAt: new Date().toISOString(),
        detail: { published, queues },
      };
    },
  };
}

/** `publish-poison <QUEUE|all>` in compose: `anyNodeUp` reads the containers' state. */
export function dockerPublishPoisonAction(
  amqpAdminUrls: readonly string[],
  anyNodeUp: () => Promise<boolean>,
): DockerFaultAction {
  return {
    usage: USAGE,
    target: TARGET,
    undoable: false,
    prepare: async (target) => {
      const queues = poisonQueues(target);
      if (!(await anyNodeUp())) throw new FaultRequestError(409, "no broker node is running");
      return poisonFault(amqpAdminUrls, target, queues);
    },
  };
}

/** `publish-poison <QUEUE|all>` for the fault controller: nothing to undo, so never timed. */
export const publishPoisonAction: FaultAction = {
  usage: USAGE,
  target: TARGET,
  undoable: false,
  prepare: async (s, target) => {
    const queues = poisonQueues(target);
    const nodes = new Set(s.layout.rabbitmq.nodes.map((n) => n.name));
    if (infrastructureParts(s).every((p) => !nodes.has(p.name) || p.pid === undefined))
      throw new FaultRequestError(409, "no broker node is running");
    return poisonFault(amqpUrls(s, "admin"), target, queues);
  },
};
