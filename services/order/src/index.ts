// What other packages (the fault lab, the bench) use of the order service.

export { CANCEL_ACKS } from "./cancel-acks.ts";
export { createDb, type Db, type Tx } from "./db.ts";
export { readEnv } from "./env.ts";
export { MIGRATIONS_DIR, type OrderParts, orderService } from "./service.ts";
export { recordStockLevel } from "./steps/record-stock-level.ts";
export { orderSubscriptions, PUBLISHES, QUEUE } from "./subscriptions.ts";
