// `pnpm dev <service>`: one service from source, restarted on every change (tsx watch), in the place of
// the stack's own copy: same port, same database, broker and Redis credentials, so the other services,
// the relays, the demo and the load tests reach it unchanged. The stack's copy is held stopped while it
// runs and started again when it ends, unless it was stopped already.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { parseCli } from "@orderflow/config";
import { startApp, stopApp, supervisorPid } from "./apps/control.ts";
import { type AppDefinition, appDefinitions } from "./apps/definitions.ts";
import { readHeld } from "./apps/state.ts";
import { inheritedEnv, readInfraEnv, repoRoot } from "./env.ts";
import { stackLayout } from "./layout.ts";
import { openStack, type Stack } from "./open-stack.ts";
import { readSecrets } from "./secrets.ts";
import { SERVICE_NAMES } from "./services.ts";
import { infrastructureDown } from "./stack.ts";

const USAGE = `usage: pnpm dev <service>
  Runs <service> (${SERVICE_NAMES.join(", ")}) from source, restarted on every change, with the port and
  environment the local stack gives it. The stack's own copy is stopped meanwhile and started again when
  this ends (Ctrl-C). Needs a running stack: pnpm stack up.`;

const log = (m: string) => process.stderr.write(`[dev] ${m}\n`);

/** The running local stack, or an error naming what is missing. */
function runningStack(): Stack {
  const env = readInfraEnv();
  if (!readSecrets(stackLayout(env).secretsFile))
    throw new Error(`no local stack at ${env.stackDir}: run \`pnpm stack up\` first`);
  const s = openStack(env, false);
  const down = infrastructureDown(s);
  if (down.length > 0)
    throw new Error(`the local stack is not running (down: ${down.join(", ")}): run \`pnpm stack up\` first`);
  return s;
}

/** tsx watch on the service's main, in its own process group so only this process decides its end. */
function spawnWatch(app: AppDefinition): ChildProcess {
  return spawn(
    path.join(repoRoot, "node_modules/.bin/tsx"),
    ["watch", "--clear-screen=false", path.join(repoRoot, app.entry)],
    {
      cwd: repoRoot,
      env: { ...inheritedEnv(), ...app.env },
      stdio: ["ignore", "inherit", "inherit"],
      detached: true,
    },
  );
}

async function main(argv: string[]): Promise<number> {
  const { positionals, fail } = parseCli({ usage: USAGE, positionals: { max: 1 } }, argv);
  const service = positionals[0];
  if (service === undefined) return fail("pnpm dev needs a <service>");
  if (!(SERVICE_NAMES as readonly string[]).includes(service))
    fail(`unknown service "${service}"; services: ${SERVICE_NAMES.join(", ")}`);
  const s = runningStack();
  const app = appDefinitions(s).find((a) => a.kind === "service" && a.name === service) as AppDefinition;

  // Ctrl-C reaches this process (and pnpm, which passes it on once more): the first one ends the
  // service; the stack's copy is then started again whatever else arrives.
  let stopRequested = false;
  let child: ChildProcess | undefined;
  const onSignal = () => {
    if (stopRequested) return;
    stopRequested = true;
    child?.kill("SIGTERM"); // tsx watch passes it to the service, and kills it after 5 s
  };
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, onSignal);
  process.on("exit", () => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }
  });

  const stackCopyRan = supervisorPid(s) !== undefined && !readHeld(s.layout).includes(service);
  if (stackCopyRan) {
    log(`stopping the stack's ${service} (it starts again when this ends)`);
    await stopApp(s, service);
  }
  let code = 0;
  if (!stopRequested) {
    log(`${service} from source at ${app.url}, restarted on every change; Ctrl-C to stop`);
    const watch = spawnWatch(app);
    child = watch;
    code = await new Promise<number>((resolve) => {
      watch.once("error", (e) => {
        log(`could not start tsx watch: ${e.message}`);
        resolve(1);
      });
      watch.once("exit", (c, sig) => resolve(c ?? (sig ? 1 : 0)));
    });
  }
  if (stackCopyRan) {
    log(`starting the stack's ${service} again`);
    await startApp(s, service);
    log(`the stack's ${service} is running`);
  }
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
