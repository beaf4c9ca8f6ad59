// The application processes the stack runs beside the infrastructure: the three services and one outbox
// relay per service, N of each with `up --replicas N`, with the environment each gets (the same
// variables docker-compose.yml sets).
import path from "node:path";
import { doneOnConfirm, publishedBy } from "@orderflow/contracts";
import { amqpUrlsFor } from "../broker-urls.ts";
import { otelEnv, repoRoot } from "../env.ts";
import { instancePort } from "../layout.ts";
import type { Stack } from "../open-stack.ts";
import { serviceUrl } from "../postgres.ts";
import { redisUrl } from "../redis.ts";
import { SERVICE_NAMES, type ServiceName } from "../services.ts";
import { instanceName } from "./state.ts";
import type { AppVariant } from "./variant.ts";

export interface AppDefinition {
  /** Unique per process: the app's name for instance 1 ("order", "relay:order"), `app#N` for the others. */
  name: string;
  /** What the process is an instance of: "order", "relay:order", ... (variants and logs group by it). */
  app: string;
  /** 1..replicas. */
  instance: number;
  kind: "service" | "relay";
  service: ServiceName;
  command: string;
  args: string[];
  /** The repo-relative file it runs: its own main, or the variant's entry. */
  entry: string;
  env: Record<string, string>;
  /** For services: their HTTP base URL (readiness at /health/ready). */
  url?: string;
}

// Node itself with tsx as a loader, not the tsx wrapper: the wrapper runs the program in a child process,
// so a SIGKILL (chaos `kill`) would hit the wrapper and leave the real process running.
const node = process.execPath;
const run = (file: string) => ["--import", "tsx", path.join(repoRoot, file)];

/** Each service instance's base URL, by service: what the replicas of `up --replicas N` listen on. */
export function serviceInstanceUrls(s: Stack, replicas: number): Record<ServiceName, string[]> {
  const urls = (svc: ServiceName) =>
    Array.from(
      { length: replicas },
      (_, i) => `http://127.0.0.1:${instancePort(s.layout.servicePorts[svc], i + 1)}`,
    );
  return { order: urls("order"), inventory: urls("inventory"), points: urls("points") };
}

/** Each app instance as `variant` runs it (production when `{}`): its entry file and its environment. */
export function appDefinitions(s: Stack, variant: AppVariant = {}, replicas = 1): AppDefinition[] {
  const host = "127.0.0.1";
  const extraEnv = variant.env ?? {};
  // OTEL_* of `pnpm stack up` reach every process; each is named for itself (as in docker-compose.yml),
  // since one OTEL_SERVICE_NAME for all six would merge them in a trace viewer.
  const otel = otelEnv();
  const entry = (name: string, own: string) => variant.entries?.[name] ?? own;
  const urls = serviceInstanceUrls(s, replicas);
  const instances = Array.from({ length: replicas }, (_, i) => i + 1);
  return SERVICE_NAMES.flatMap((svc) =>
    instances.flatMap((instance): AppDefinition[] => {
      const P = svc.toUpperCase();
      const db = serviceUrl(s.pg, svc);
      const amqp = amqpUrlsFor(s, svc).join(",");
      const serviceEntry = entry(svc, `services/${svc}/src/main.ts`);
      const relay = `relay:${svc}`;
      const relayEntry = entry(relay, "packages/outbox/src/relay-main.ts");
      return [
        {
          name: instanceName(svc, instance),
          app: svc,
          instance,
          kind: "service",
          service: svc,
          command: node,
          args: run(serviceEntry),
          entry: serviceEntry,
          url: urls[svc][instance - 1] as string,
          env: {
            [`${P}_HOST`]: host,
            [`${P}_PORT`]: String(instancePort(s.layout.servicePorts[svc], instance)),
            [`${P}_DATABASE_URL`]: db,
            [`${P}_AMQP_URLS`]: amqp,
            REDIS_URL: redisUrl(s),
            ADMIN_TOKEN: s.secrets.adminToken,
            // Reconciliation asks each peer's instances in turn, so one instance down does not stop it.
            INVENTORY_URL: urls.inventory.join(","),
            POINTS_URL: urls.points.join(","),
            LOG_LEVEL: "info",
            ...otel,
            OTEL_SERVICE_NAME: svc,
            ...extraEnv,
          },
        },
        {
          name: instanceName(relay, instance),
          app: relay,
          instance,
          kind: "relay",
          service: svc,
          command: node,
          args: run(relayEntry),
          entry: relayEntry,
          env: {
            OUTBOX_DATABASE_URL: db,
            OUTBOX_AMQP_URLS: amqp,
            // Events no reply answers are done once confirmed (the same list the service itself uses).
            OUTBOX_DONE_ON_CONFIRM: doneOnConfirm(publishedBy(svc)).join(","),
            // The order service's reconciliation re-sends what is missing, with knowledge of the saga.
            OUTBOX_RECONCILE: "off",
            OUTBOX_LOG_LEVEL: "info",
            // Scraped by the stack's Prometheus (job relay); loopback only, the default host.
            OUTBOX_METRICS_PORT: String(instancePort(s.layout.relayMetricsPorts[svc], instance)),
            ...otel,
            OTEL_SERVICE_NAME: `relay-${svc}`,
            ...extraEnv,
          },
        },
      ];
    }),
  );
}
