// The points service: its work queue, its database and its routes, composed as every service is. main.ts
// runs it with every protection on; the fault lab with other parts (@orderflow/service-runtime parts.ts).
import { defineService } from "@orderflow/service-runtime";
import { database } from "./db.ts";
import { registerPointsRoutes as routes } from "./routes.ts";
import { WORK_QUEUE as workQueue } from "./subscriptions.ts";

const points = defineService("points", import.meta.url, { database, workQueue, routes });
export const MIGRATIONS_DIR = points.migrationsDir;
export const pointsService = points.compose;
