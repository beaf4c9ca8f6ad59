// The order service as the fault lab runs it: its own composition with the lab's parts.
import { createLogger } from "@orderflow/logging";
import { createBrokerConnection, createConfirmPublisher } from "@orderflow/messaging";
import { orderService, readEnv, recordStockLevel } from "@orderflow/order";
import { main, type WriteWithEvents } from "@orderflow/service-runtime";
import { readLabEnv } from "./env.ts";
import { failEveryNthInStream } from "./fail-in-stream.ts";
import { commonLabParts } from "./parts.ts";
import { publishOrderCreatedFirst, rollBackSomeOrders } from "./publish-before-commit.ts";
import { warnLabOn } from "./warn.ts";

main(() => {
  const env = readEnv();
  const lab = readLabEnv();
  const log = createLogger({ name: "order", level: env.logLevel });
  warnLabOn(log, lab);
  const wrappers: ((own: WriteWithEvents) => WriteWithEvents)[] = [];
  // Outermost first: the event is published, then the write rolls back (or commits).
  if (lab.pitfall === "publish-before-commit") {
    const connection = createBrokerConnection({ urls: env.amqpUrls, name: "order-lab-publish-now", log });
    wrappers.push(publishOrderCreatedFirst(createConfirmPublisher(connection, { log })));
  }
  if (lab.rollbackRate > 0) wrappers.push(rollBackSomeOrders(lab.rollbackRate));
  const write = (own: WriteWithEvents) => wrappers.reduceRight((inner, wrap) => wrap(inner), own);
  // Reconciliation still answers an operator (POST /admin/reconcile); it just never runs by itself.
  const scheduledReconciliation = lab.pitfall !== "no-reconciliation";
  const parts = commonLabParts(lab);
  if (lab.streamFailEvery > 0)
    parts.steps = {
      ...parts.steps,
      "inventory.stock-changed": failEveryNthInStream(recordStockLevel, lab.streamFailEvery),
    };
  return orderService(env, { ...parts, write, scheduledReconciliation });
});
