// POST /faults applies a fault through the shared fault controller (the same checks and chaos code as
// `pnpm stack chaos`); GET /faults lists the timed faults still active and the ones done.

import { HttpProblem } from "@orderflow/http";
import { type FaultController, FaultRequestError } from "@orderflow/lab";
import type { FastifyInstance } from "fastify";

export function registerFaultRoutes(app: FastifyInstance, faults: FaultController): void {
  app.post("/faults", async (req) => {
    try {
      return { fault: await faults.apply(req.body) };
    } catch (e) {
      // 400 (the request) and 409 (the live state) as problem JSON; anything else is a failed action.
      if (e instanceof FaultRequestError) throw new HttpProblem(e.code, e.message);
      throw e;
    }
  });
  app.get("/faults", async () => ({ active: faults.active(), history: faults.history() }));
}
