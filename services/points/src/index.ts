// What other packages (the fault lab, the bench) use of the points service.
export { createDb, type Db, type Tx } from "./db.ts";
export { readEnv } from "./env.ts";
export { MIGRATIONS_DIR, pointsService } from "./service.ts";
export { PUBLISHES, QUEUE, SUBSCRIPTIONS } from "./subscriptions.ts";
