// The control service: `pnpm stack up` starts it under its keeper (CONTROL_TOKEN from the stack's
// secrets). Reads its environment, opens the backend, listens; SIGTERM/SIGINT close it gracefully:
// the HTTP server first (the open flow streams end), then the sampler, the fault controller (which
// undoes the timed faults still active) and any scenario run in progress.
import { openStack, readInfraEnv } from "@orderflow/infra";
import { readLoadEnv } from "@orderflow/load/env.ts";
import { createLogger } from "@orderflow/logging";
import { buildControlApp, createLocalBackend } from "./app.ts";
import { createDockerBackend } from "./docker-backend.ts";
import { readControlEnv } from "./env.ts";

const env = readControlEnv();
const log = createLogger({ name: "control", level: "info" });
const logLine = (message: string) => log.info({ detail: message }, "control.log");
const reportsDir = readLoadEnv().reportsDir;
// local: the stack of `pnpm stack up` (ORDERFLOW_* env); docker: the compose project's containers.
const backend = env.docker
  ? createDockerBackend({
      socketPath: env.docker.dockerSocket,
      project: env.docker.composeProject,
      managementUrls: env.docker.managementUrls,
      amqpAdminUrls: env.docker.amqpAdminUrls,
      databaseUrls: env.docker.databaseUrls,
      reportsDir,
      log: logLine,
    })
  : createLocalBackend(openStack(readInfraEnv(), false), { reportsDir, log: logLine });
const app = await buildControlApp({ ...backend, token: env.token, logger: log });
await app.listen({ host: env.host, port: env.port });
log.info({ url: `http://${env.host}:${env.port}`, backend: env.backend }, "control.listening");

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "control.stopping");
  try {
    await app.close();
    await backend.close();
  } catch (e) {
    log.error({ err: e }, "control.stop_failed");
    process.exitCode = 1;
  }
  log.info("control.stopped");
}
process.once("SIGTERM", () => void shutdown("SIGTERM"));
process.once("SIGINT", () => void shutdown("SIGINT"));
