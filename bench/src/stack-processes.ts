// The processes of the running stack, from `stack status` (PIDs change when the apps restart, so this is
// read again after every restart). The system under test is what an order costs: the services, their
// relays, PostgreSQL, RabbitMQ (nodes and epmd) and Redis. Monitoring (Prometheus, Alertmanager, the
// exporters), the fault lab's control service and the local supervisor are reported beside it, not in it.
import { type Stack, stackStatus } from "@orderflow/infra";
import { parentPid } from "./cpu.ts";

export interface StackProcesses {
  /** Group -> process-tree roots, the system under test. */
  underTest: Record<string, number[]>;
  /** Group -> roots, not counted in the CPU per order. */
  beside: Record<string, number[]>;
  /** App name ("order", "relay:order", ...) -> PID, for the memory section. */
  apps: Record<string, number>;
}

/** Groups of `beside` measured as their root process alone (the supervisor's tree is every app). */
export const SELF_ONLY = ["supervisor"] as const;

const pids = (...p: (number | null | undefined)[]): number[] =>
  p.filter((x): x is number => typeof x === "number" && x > 0);

export async function stackProcesses(stack: Stack): Promise<StackProcesses> {
  const st = await stackStatus(stack);
  // Every instance of an app (`pnpm stack up --replicas N` runs several) counts toward its group.
  const app = (name: string) => st.services.filter((s) => s.app === name).map((s) => s.pid);
  const apps = Object.fromEntries(st.services.flatMap((s) => (s.pid ? [[s.name, s.pid]] : [])));
  const firstApp = Object.values(apps)[0];
  const supervisor = firstApp ? parentPid(firstApp) : 0;
  return {
    underTest: {
      postgres: pids(st.postgres.pid),
      rabbitmq: pids(...st.rabbitmq.nodes.map((n) => n.pid), st.rabbitmq.epmd.pid),
      redis: pids(st.redis.pid),
      "order service": pids(...app("order")),
      "inventory service": pids(...app("inventory")),
      "points service": pids(...app("points")),
      "order relay": pids(...app("relay:order")),
      "inventory relay": pids(...app("relay:inventory")),
      "points relay": pids(...app("relay:points")),
    },
    beside: {
      prometheus: pids(st.prometheus.pid),
      alertmanager: pids(st.alertmanager.pid),
      ...Object.fromEntries(Object.entries(st.exporters).map(([k, v]) => [`${k} exporter`, pids(v.pid)])),
      "control service": pids(st.control.pid),
      supervisor: supervisor > 1 ? [supervisor] : [],
    },
    apps,
  };
}
