// The order service as the fault lab runs it: its own composition with the lab's parts.
import type { SqlTx } from "@orderflow/db";
import { createLogger } from "@orderflow/logging";
import { createBrokerConnection, createConfirmPublisher } from "@orderflow/messaging";
import { orderService, readEnv } from "@orderflow/order";
import { enqueue, type OutboxEvent } from "@orderflow/outbox";
import { main, type ServiceParts } from "@orderflow/service-runtime";
import { readLabEnv } from "./env.ts";
import { commonLabParts } from "./parts.ts";
import { publishOrderCreatedNow, rollBackSomeOrders } from "./publish-before-commit.ts";
import { warnLabOn } from "./warn.ts";

main(() => {
  const env = readEnv();
  const lab = readLabEnv();
  const log = createLogger({ name: "order", level: env.logLevel });
  warnLabOn(log, lab);
  const parts: ServiceParts = commonLabParts(lab);
  let write = (tx: SqlTx, event: OutboxEvent) => enqueue(tx, event);
  if (lab.pitfall === "publish-before-commit") {
    const connection = createBrokerConnection({ urls: env.amqpUrls, name: "order-lab-publish-now", log });
    write = publishOrderCreatedNow(createConfirmPublisher(connection, { log }));
  }
  if (lab.rollbackRate > 0) write = rollBackSomeOrders(write, lab.rollbackRate);
  // Reconciliation still answers an operator (POST /admin/reconcile); it just never runs by itself.
  const scheduledReconciliation = lab.pitfall !== "no-reconciliation";
  return orderService(env, { ...parts, enqueue: write, scheduledReconciliation });
});
