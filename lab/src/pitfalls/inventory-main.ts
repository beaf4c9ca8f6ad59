// The inventory service as the fault lab runs it: its own composition with the lab's parts.
import { inventoryService, readEnv, SUBSCRIPTIONS } from "@orderflow/inventory";
import { createLogger } from "@orderflow/logging";
import { main } from "@orderflow/service-runtime";
import { readLabEnv } from "./env.ts";
import { failFirstDeliveries } from "./fail-first-deliveries.ts";
import { reserveStockUnguarded } from "./naive-steps.ts";
import { commonLabParts } from "./parts.ts";
import { warnLabOn } from "./warn.ts";

main(() => {
  const env = readEnv();
  const lab = readLabEnv();
  warnLabOn(createLogger({ name: "inventory", level: env.logLevel }), lab);
  const parts = commonLabParts(lab);
  // The naive consumer drops the steps' state guards too.
  if (lab.pitfall === "no-consumer-dedup") parts.steps = { "order.created": reserveStockUnguarded };
  const reserve = parts.steps?.["order.created"] ?? SUBSCRIPTIONS["order.created"];
  if (lab.failShare > 0 && reserve)
    parts.steps = { ...parts.steps, "order.created": failFirstDeliveries(reserve, lab.failShare) };
  return inventoryService(env, parts);
});
