// POST /faults of a running control service, as a FaultController's `apply`: how the lab drives the
// compose stack's containers (the control service's Docker backend does the work). A refusal (400/409)
// comes back as the same FaultRequestError the in-process controller throws.
import type { Fault } from "./book.ts";
import { FaultRequestError } from "./request.ts";

export interface FaultApplier {
  apply(request: unknown): Promise<Fault>;
}

export function controlFaultClient(controlUrl: string, token: string): FaultApplier {
  return {
    async apply(request) {
      const res = await fetch(`${controlUrl}/faults`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(request),
        // A node's start waits for its queues (up to 180 s in the Docker backend).
        signal: AbortSignal.timeout(240_000),
      });
      const body = (await res.json().catch(() => ({}))) as { fault?: Fault; detail?: string; title?: string };
      if (res.ok && body.fault) return body.fault;
      const why = body.detail ?? body.title ?? `HTTP ${res.status}`;
      if (res.status === 400 || res.status === 409) throw new FaultRequestError(res.status as 400 | 409, why);
      throw new Error(`control service ${controlUrl}: POST /faults ${JSON.stringify(request)}: ${why}`);
    },
  };
}
