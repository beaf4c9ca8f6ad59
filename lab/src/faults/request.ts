// What a fault request looks like (`pnpm stack chaos`, the control service's POST /faults) and its
// checks that need no stack: action known, target given exactly when the action takes one, durationS in
// range and only for an action that can be undone. Pure, so the CLI refuses bad arguments before it
// opens the stack.

export interface FaultRequest {
  action: string;
  target?: string;
  /** Undo the fault after this many seconds (1..600). */
  durationS?: number;
}

/** Why a fault request was refused: 400 (the request itself is wrong) or 409 (the live state conflicts). */
export class FaultRequestError extends Error {
  readonly status: 400 | 409;
  /** The problem code the HTTP layer answers with (@orderflow/http's catalog). */
  readonly code: "VALIDATION_FAILED" | "INVALID_STATE";
  constructor(status: 400 | 409, message: string) {
    super(message);
    this.name = "FaultRequestError";
    this.status = status;
    this.code = status === 400 ? "VALIDATION_FAILED" : "INVALID_STATE";
  }
}

export const badRequest = (message: string) => new FaultRequestError(400, message);
export const conflict = (message: string) => new FaultRequestError(409, message);

export const MAX_FAULT_DURATION_S = 600;

/** The static side of an action: enough to check a request without the stack. */
export interface FaultActionShape {
  /** The placeholder of the target it needs, e.g. "<app>"; absent when it takes none. */
  target?: string;
  /** Whether it has an undo, so `durationS` is allowed. */
  undoable: boolean;
}

const KEYS = new Set(["action", "target", "durationS"]);

/** Checks an untrusted request (a parsed JSON body, CLI arguments); throws FaultRequestError 400. */
export function parseFaultRequest(input: unknown, actions: Record<string, FaultActionShape>): FaultRequest {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw badRequest("a fault request is a JSON object {action, target?, durationS?}");
  const body = input as Record<string, unknown>;
  const extra = Object.keys(body).filter((k) => !KEYS.has(k));
  if (extra.length > 0)
    throw badRequest(`unknown field(s) ${extra.join(", ")}; allowed: action, target, durationS`);
  const { action, target, durationS } = body;
  if (typeof action !== "string" || action === "") throw badRequest("action must be a non-empty string");
  // Own properties only: "constructor" or "__proto__" is an unknown action, not Object's.
  const a = Object.hasOwn(actions, action) ? actions[action] : undefined;
  if (!a) throw badRequest(`unknown chaos action "${action}"; actions: ${Object.keys(actions).join(", ")}`);
  if (target !== undefined && typeof target !== "string") throw badRequest("target must be a string");
  if (a.target && !target) throw badRequest(`${action} needs a target: ${a.target}`);
  if (!a.target && target !== undefined) throw badRequest(`${action} takes no target, got "${target}"`);
  if (durationS !== undefined) {
    if (typeof durationS !== "number" || !Number.isFinite(durationS))
      throw badRequest("durationS must be a number of seconds");
    if (durationS < 1 || durationS > MAX_FAULT_DURATION_S)
      throw badRequest(`durationS must be between 1 and ${MAX_FAULT_DURATION_S}, got ${durationS}`);
    if (!a.undoable) throw badRequest(`${action} has no undo, so it takes no durationS`);
  }
  return {
    action,
    ...(target !== undefined ? { target } : {}),
    ...(durationS !== undefined ? { durationS } : {}),
  };
}
