// The control service's HTTP app: the base app every service has (problem JSON, health, metrics), a
// bearer token on every POST, and the route groups. The backend (local processes, or compose's
// containers) hands in what acts and what observes; the routes know neither.
import { createHash, timingSafeEqual } from "node:crypto";
import { createBaseApp, HttpProblem } from "@orderflow/http";
import { infrastructureParts, type Stack } from "@orderflow/infra";
import { createFaultController, type FaultController } from "@orderflow/lab";
import { publishPoisonAction } from "@orderflow/lab/faults/poison.ts";
import type { Logger } from "@orderflow/logging";
import type { FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { type AuditQuery, type AuditSinceResult, auditSince, localAuditSources } from "./audit-since.ts";
import { registerConsoleRoutes } from "./console-routes.ts";
import { createFlowSampler, type FlowSampler, localFlowSources } from "./flow-sampler.ts";
import { registerAuditRoutes } from "./routes-audit.ts";
import { registerFaultRoutes } from "./routes-faults.ts";
import { registerFlowRoutes } from "./routes-flow.ts";
import { registerScenarioRoutes } from "./routes-scenarios.ts";
import { createScenarioRuns, type ScenarioRuns } from "./scenario-runs.ts";

/** What a backend provides: the fault controller and what the flow, the audit and the scenarios read. */
export interface ControlBackend {
  faults: FaultController;
  flow: FlowSampler;
  audit: (q: AuditQuery) => Promise<AuditSinceResult>;
  scenarios: ScenarioRuns;
  /** /health/ready's `stack` check. */
  stackReady: () => Promise<boolean>;
}

export interface ControlAppOptions extends ControlBackend {
  token: string;
  logger?: Logger;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Every POST acts on the system, so every POST needs the token; GETs only read and the service listens
 * on loopback. Compared as digests in constant time, so neither the length nor a prefix leaks.
 */
function guardPosts(app: FastifyInstance, token: string): void {
  const expected = digest(`Bearer ${token}`);
  app.addHook("onRequest", async (req, reply) => {
    if (req.method !== "POST") return;
    const given = req.headers.authorization;
    if (typeof given !== "string" || !timingSafeEqual(digest(given), expected)) {
      reply.header("www-authenticate", 'Bearer realm="orderflow-control"');
      throw new HttpProblem(
        "UNAUTHORIZED",
        "Authorization: Bearer <control token> (stack status --json: .control.token)",
      );
    }
  });
}

export async function buildControlApp(o: ControlAppOptions): Promise<FastifyInstance> {
  const app = await createBaseApp({
    service: "control",
    readiness: { stack: o.stackReady },
    metrics: new Registry(),
    ...(o.logger ? { logger: o.logger } : {}),
  });
  guardPosts(app, o.token);
  registerFaultRoutes(app, o.faults);
  registerAuditRoutes(app, o.audit);
  registerFlowRoutes(app, o.flow);
  registerScenarioRoutes(app, o.scenarios);
  registerConsoleRoutes(app);
  return app;
}

/** The local stack's backend: its processes through infra's fault controller, its ports and PIDs. */
export function createLocalBackend(
  stack: Stack,
  opts: { reportsDir: string; log: (message: string) => void },
): ControlBackend & { close(): Promise<void> } {
  const faults = createFaultController(stack, {
    extraActions: { "publish-poison": publishPoisonAction },
    log: opts.log,
  });
  const scenarios = createScenarioRuns(stack, { reportsDir: opts.reportsDir, log: opts.log });
  const auditSources = localAuditSources(stack);
  const flow = createFlowSampler(localFlowSources(stack), {
    faults: () => faults.active(),
    scenario: () => scenarios.current(),
    log: opts.log,
  });
  return {
    faults,
    flow,
    scenarios,
    audit: (q) => auditSince(auditSources, q),
    // Ready while any part of the stack runs: a fault that stops a part is what this service is for.
    stackReady: async () => infrastructureParts(stack).some((p) => p.pid !== undefined),
    async close() {
      await flow.close();
      // Undoes every timed fault still active, so the stack is left whole.
      await faults.close();
      await scenarios.close();
    },
  };
}
