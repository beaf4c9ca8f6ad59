// What other packages (the fault lab, the bench) use of the inventory service.
export { createDb, type Db, type Tx } from "./db.ts";
export { readEnv } from "./env.ts";
export { inventoryService, MIGRATIONS_DIR } from "./service.ts";
export { findShortage } from "./steps/reserve-stock.ts";
export { unitsBySku } from "./steps/units-by-sku.ts";
export { PUBLISHES, QUEUE, SUBSCRIPTIONS } from "./subscriptions.ts";
