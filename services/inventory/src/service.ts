// The inventory service: its work queue, its database and its routes, composed as every service is. main.ts
// runs it with every protection on; the fault lab with other parts (@orderflow/service-runtime parts.ts).
import { defineService } from "@orderflow/service-runtime";
import { database } from "./db.ts";
import { registerInventoryRoutes as routes } from "./routes.ts";
import { WORK_QUEUE as workQueue } from "./subscriptions.ts";

const inventory = defineService("inventory", import.meta.url, { database, workQueue, routes });
export const MIGRATIONS_DIR = inventory.migrationsDir;
export const inventoryService = inventory.compose;
