// The compose project seen from the host, in the local stack's shapes: a Stack whose ports are those
// docker-compose.yml publishes and whose secrets are .env's, so the clients of a Stack (the lab's load,
// audit and samplers) read the containers as they read the local processes. It starts nothing.

import { stackLayout } from "../layout.ts";
import type { Stack } from "../open-stack.ts";
import { waitFor } from "../proc.ts";
import type { StackSecrets } from "../secrets.ts";
import { type ComposeContext, openContext } from "./context.ts";
import { readEnvFile } from "./dotenv.ts";
import { readComposeEnv } from "./env.ts";
import { withOffset } from "./ports.ts";
import { coreServices, isOneShot, publishedPorts, requiredVariables } from "./project.ts";
import { problems, projectContainers } from "./status.ts";

export interface ComposeStackView {
  stack: Stack;
  /** The control service on the host, and its bearer token for POST /faults. */
  control: { url: string; token: string };
  /** The engine's socket, for clients of the Docker Engine API. */
  engineHost: string;
  /** Whether Alertmanager (the monitoring profile) publishes its port: undefined when it is not up. */
  alertmanagerUrl: string | undefined;
  /**
   * Starts every long-running core container that is not running and waits until all are healthy;
   * returns the services it started. A fault that failed half-way leaves nothing down for the next run.
   */
  heal(log?: (m: string) => void): Promise<string[]>;
}

/** docker-compose.yml publishes the local stack's ports, so the local layout (with compose's offset) fits. */
function secretsOf(env: Record<string, string>): StackSecrets {
  const v = (name: string) => env[name] as string;
  return {
    postgresAdmin: v("POSTGRES_ADMIN_PASSWORD"),
    databases: {
      order: v("ORDER_DB_PASSWORD"),
      inventory: v("INVENTORY_DB_PASSWORD"),
      points: v("POINTS_DB_PASSWORD"),
    },
    postgresMonitor: v("POSTGRES_MONITOR_PASSWORD"),
    brokerAdmin: v("RABBITMQ_ADMIN_PASSWORD"),
    broker: {
      order: v("ORDER_BROKER_PASSWORD"),
      inventory: v("INVENTORY_BROKER_PASSWORD"),
      points: v("POINTS_BROKER_PASSWORD"),
    },
    erlangCookie: v("RABBITMQ_ERLANG_COOKIE"),
    redis: v("REDIS_PASSWORD"),
    adminToken: v("ADMIN_TOKEN"),
    controlToken: v("CONTROL_TOKEN"),
  };
}

async function healCompose(ctx: ComposeContext, log: (m: string) => void): Promise<string[]> {
  const services = coreServices(ctx.project).filter((s) => !isOneShot(ctx.project.services[s] ?? {}));
  const down = (await projectContainers(ctx)).filter(
    (c) => services.includes(c.service) && c.state !== "running",
  );
  for (const c of down) {
    log(`starting ${c.service} (${c.state})`);
    await ctx.docker.run(["start", c.name], 60_000);
  }
  let last: string[] = [];
  try {
    await waitFor(
      "every compose container to be healthy",
      async () => {
        last = problems(ctx, services, await projectContainers(ctx));
        return last.length === 0;
      },
      { timeoutMs: 240_000, intervalMs: 2_000 },
    );
  } catch {
    throw new Error(`compose stack not healthy: ${last.join("; ")}`);
  }
  return down.map((c) => c.service);
}

/** Opens the running compose project (the engine `pnpm compose up` found or started, and .env). */
export async function openComposeStack(log: (m: string) => void = () => {}): Promise<ComposeStackView> {
  const env = readComposeEnv();
  const ctx = await openContext(env, log, { start: false });
  const dotenv = readEnvFile(ctx.repoRoot, requiredVariables(ctx.project));
  const layout = stackLayout({ stackDir: ctx.layout.dir, portOffset: env.portOffset });
  // Management reports compose's node names (rabbit@<host name>), not the local stack's.
  layout.rabbitmq.nodes = layout.rabbitmq.nodes.map((n) => ({ ...n, name: `rabbit@rabbitmq-${n.index}` }));
  const secrets = secretsOf(dotenv);
  const stack: Stack = {
    env: {
      stackDir: ctx.layout.dir,
      portOffset: env.portOffset,
      isRoot: env.isRoot,
      postgresBinDir: undefined,
      rabbitmqBinDir: "",
    },
    layout,
    secrets,
    pg: { layout, secrets, binDir: "", isRoot: env.isRoot },
    rabbit: { layout, secrets, binDir: "", remote: true },
  };
  const port = (service: string) => {
    const p = publishedPorts(ctx.project, [service])[0];
    return p ? withOffset(p, env.portOffset).published : undefined;
  };
  const running = new Set(
    (await projectContainers(ctx)).filter((c) => c.state === "running").map((c) => c.service),
  );
  const am = running.has("alertmanager") ? port("alertmanager") : undefined;
  return {
    stack,
    control: { url: `http://127.0.0.1:${port("control")}`, token: secrets.controlToken },
    engineHost: ctx.engine.host,
    alertmanagerUrl: am ? `http://127.0.0.1:${am}` : undefined,
    heal: (l = () => {}) => healCompose(ctx, l),
  };
}
