// The image's six processes (three services, three outbox relays) started from a production tree the
// way the containers run them: the image's Node, its ENV, a compiled entry point, and the environment the
// local stack gives each app, on free ports, with the order service asking the compiled inventory and
// points (not the stack's own) during reconciliation.
import { type AppDefinition, appDefinitions } from "../../src/apps/definitions.ts";
import type { Stack } from "../../src/index.ts";
import { freePort, type Started, startProcess, stopProcess, whileRunning } from "./processes.ts";

export interface CompiledApp {
  def: AppDefinition;
  /** The repo-relative JavaScript file it runs. */
  entry: string;
  process: Started;
  /** A service's HTTP base, or a relay's metrics endpoint. */
  url: string;
}

/** Where tsc puts a package's source file: services/order/src/main.ts -> services/order/dist/src/main.js. */
export function compiledEntry(source: string): string {
  const m = /^((?:packages|services)\/[^/]+)\/src\/(.+)\.ts$/.exec(source);
  if (!m)
    throw new Error(
      `compiledEntry: ${source} is not a .ts file under packages/<pkg>/src or services/<svc>/src`,
    );
  return `${m[1]}/dist/src/${m[2]}.js`;
}

/**
 * Starts every app the stack defines from `tree`; each process goes into `started` as soon as it exists,
 * so the caller can stop it even when a later one fails to start.
 */
export async function startCompiledApps(
  stack: Stack,
  opts: { tree: string; node: string; imageEnv: Record<string, string>; started: Started[] },
): Promise<CompiledApp[]> {
  const defs = appDefinitions(stack);
  const ports = new Map<string, number>();
  for (const d of defs) ports.set(d.name, await freePort());
  const base = (name: string) => `http://127.0.0.1:${ports.get(name)}`;
  const peers = { INVENTORY_URL: base("inventory"), POINTS_URL: base("points") };
  return defs.map((def) => {
    const entry = compiledEntry(def.entry);
    const port = String(ports.get(def.name));
    const own: Record<string, string> =
      def.kind === "service"
        ? { [`${def.service.toUpperCase()}_PORT`]: port, ...peers }
        : { OUTBOX_METRICS_PORT: port };
    const child = startProcess(`${def.name} (compiled)`, opts.node, [entry], {
      cwd: opts.tree,
      env: { ...opts.imageEnv, ...def.env, ...own },
    });
    opts.started.push(child);
    const url = def.kind === "service" ? base(def.name) : `${base(def.name)}/metrics`;
    return { def, entry, process: child, url };
  });
}

/**
 * A service is ready when /health/ready says so (its database, its consumer's and publisher's broker
 * links); a relay when its backlog gauge (read from its database at each scrape) is served and it has
 * connected to the broker.
 */
export async function whenReady(app: CompiledApp, timeoutMs: number): Promise<void> {
  const { process: p, url } = app;
  if (app.def.kind === "service") {
    await whileRunning(
      p,
      `${url}/health/ready`,
      async () => ((await fetch(`${url}/health/ready`)).ok ? true : undefined),
      timeoutMs,
    );
    return;
  }
  await whileRunning(
    p,
    "its outbox_pending gauge",
    async () => (/^outbox_pending \d+$/m.test(await (await fetch(url)).text()) ? true : undefined),
    timeoutMs,
  );
  await whileRunning(
    p,
    "its broker connection",
    async () => (p.output().includes('"event":"amqp.connected"') ? true : undefined),
    timeoutMs,
  );
}

/**
 * SIGTERM to the relays, then to the services (compose's order: a relay depends on its service), and
 * each one's exit code by name (null: it had to be killed).
 */
export async function stopCompiledApps(apps: CompiledApp[]): Promise<Record<string, number | null>> {
  const codes: Record<string, number | null> = {};
  for (const kind of ["relay", "service"] as const) {
    const group = apps.filter((a) => a.def.kind === kind);
    const exits = await Promise.all(group.map((a) => stopProcess(a.process)));
    group.forEach((a, i) => {
      codes[a.def.name] = exits[i] ?? null;
    });
  }
  return codes;
}
