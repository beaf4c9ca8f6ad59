// The fault controller the control service and `pnpm stack chaos` share: checks a request (400), against
// the live state and the faults in progress (409), applies it through infra's chaos.ts and, for a timed fault,
// undoes it after durationS. One per process: what it holds lives in memory, the stack's own state
// (PIDs, held apps) is read live on every request.
import { randomUUID } from "node:crypto";
import type { ChaosEvent, Stack } from "@orderflow/infra";
import { FAULT_ACTIONS, type FaultAction, type PreparedFault } from "./local-actions.ts";
import { conflict, type FaultActionShape, parseFaultRequest } from "./request.ts";

export { FAULT_ACTIONS, type FaultAction, type PreparedFault } from "./local-actions.ts";
export {
  badRequest,
  conflict,
  type FaultActionShape,
  type FaultRequest,
  FaultRequestError,
  MAX_FAULT_DURATION_S,
  parseFaultRequest,
} from "./request.ts";

export interface Fault {
  id: string;
  action: string;
  /** As requested ("leader:order.saga-replies"); for an action without one, what it acts on ("redis"). */
  target: string;
  startedAt: string;
  finishedAt: string;
  detail?: Record<string, unknown>;
  durationS?: number;
  /** When the undo is due (timed faults). */
  undoAt?: string;
  /** When the undo finished, or failed (then with undoError). */
  undoneAt?: string;
  undoError?: string;
}

export interface FaultController {
  /** Applies a request (untrusted input is fine: it is checked); throws FaultRequestError 400/409. */
  apply(request: unknown): Promise<Fault>;
  /** Timed faults not yet undone (an undo under way included), oldest first. */
  active(): Fault[];
  /** Every fault applied, oldest first, the last 200 (a timed one shows its undo once done). */
  history(): Fault[];
  /** Resolves with the fault once it is no longer active (at once for an untimed or unknown one). */
  undone(id: string): Promise<Fault | undefined>;
  /** Cancels the timers and undoes every timed fault still active. */
  close(): Promise<void>;
}

export interface FaultControllerOptions {
  /** Actions beyond chaos.ts' (the control service's publish-poison); same names replace built-ins. */
  extraActions?: Record<string, FaultAction>;
  log?: (message: string) => void;
  historyLimit?: number;
}

interface Active {
  fault: Fault;
  undo: () => Promise<ChaosEvent>;
  timer: NodeJS.Timeout;
  holds: string[];
  waiters: ((f: Fault) => void)[];
  /** The undo under way: the fault stays active, and its holds held, until it has finished. */
  undoing?: Promise<void>;
}

/** An action as the bookkeeping sees it: its request shape, and how to check and ready it for a target. */
export interface BookAction extends FaultActionShape {
  /** Checks the target (FaultRequestError 400) and the live state (409); `target` is "" when none. */
  prepare(target: string): Promise<PreparedFault>;
}

export function createFaultController(stack: Stack, opts: FaultControllerOptions = {}): FaultController {
  const all: Record<string, FaultAction> = { ...FAULT_ACTIONS, ...opts.extraActions };
  const actions = Object.fromEntries(
    Object.entries(all).map(([name, a]): [string, BookAction] => [
      name,
      { ...a, prepare: (target) => a.prepare(stack, target) },
    ]),
  );
  return createFaultBook(actions, opts);
}

/**
 * The bookkeeping every fault controller shares, whatever its actions act on (local processes here,
 * compose's containers in the control service): request checks, holds, history and the timed undo.
 */
export function createFaultBook(
  actions: Record<string, BookAction>,
  opts: Pick<FaultControllerOptions, "log" | "historyLimit"> = {},
): FaultController {
  const log = opts.log ?? (() => {});
  const limit = opts.historyLimit ?? 200;
  const active = new Map<string, Active>();
  const past: Fault[] = [];
  // What each fault being applied or timed acts on, and which fault: a second request on the same node,
  // app or server gets 409 instead of racing the first (a start-node while its timed stop is pending).
  const holders = new Map<string, string>();
  let closed = false;

  const remember = (f: Fault) => {
    past.push(f);
    if (past.length > limit) past.splice(0, past.length - limit);
  };
  const release = (holds: string[], id: string) => {
    for (const h of holds) if (holders.get(h) === id) holders.delete(h);
  };

  // A fault is active, and holds what it acts on, until its undo has finished: a node's start waits for
  // its queue members to catch up (a minute and more on a busy machine), and a client that saw "nothing
  // active" while that ran had its next fault on the same nodes refused with 409.
  function undo(a: Active): Promise<void> {
    clearTimeout(a.timer);
    a.undoing ??= runUndo(a); // a second undo (close() during the timer's) waits for the first
    return a.undoing;
  }

  async function runUndo(a: Active): Promise<void> {
    try {
      await a.undo();
      log(`undid ${a.fault.action} ${a.fault.target} (${a.fault.id})`);
    } catch (e) {
      a.fault.undoError = (e as Error).message;
      log(`undoing ${a.fault.action} ${a.fault.target} (${a.fault.id}) failed: ${a.fault.undoError}`);
    }
    a.fault.undoneAt = new Date().toISOString();
    active.delete(a.fault.id);
    release(a.holds, a.fault.id);
    for (const w of a.waiters) w(a.fault);
  }

  return {
    async apply(input) {
      if (closed) throw conflict("the fault controller is closed");
      const req = parseFaultRequest(input, actions);
      const action = actions[req.action] as BookAction;
      const prepared = await action.prepare(req.target ?? "");
      const id = randomUUID();
      // Checked and taken synchronously after the awaits, so two concurrent requests cannot both pass.
      for (const h of prepared.holds) {
        const by = holders.get(h);
        if (by) {
          const timed = active.get(by);
          const f = timed?.fault;
          throw conflict(
            !f
              ? `${h} is being acted on by another fault`
              : timed?.undoing
                ? `${h} is being brought back by the undo of ${f.action} (${f.id})`
                : `${h} is held by a timed ${f.action} (${f.id}) until ${f.undoAt}`,
          );
        }
      }
      for (const h of prepared.holds) holders.set(h, id);
      let event: ChaosEvent;
      try {
        event = await prepared.run();
      } catch (e) {
        release(prepared.holds, id);
        throw e;
      }
      const fault: Fault = {
        id,
        action: req.action,
        target: req.target ?? event.target,
        startedAt: event.startedAt,
        finishedAt: event.finishedAt,
        ...(event.detail ? { detail: event.detail } : {}),
      };
      const { durationS } = req;
      if (durationS === undefined || !prepared.undo) {
        release(prepared.holds, id);
        remember(fault);
        log(`applied ${fault.action} ${fault.target} (${id})`);
        return { ...fault };
      }
      fault.durationS = durationS;
      // Counted from when the fault took effect, so a slow stop (a graceful node stop) is still down
      // for the whole duration.
      fault.undoAt = new Date(Date.parse(fault.finishedAt) + durationS * 1_000).toISOString();
      const a: Active = {
        fault,
        undo: prepared.undo,
        holds: prepared.holds,
        waiters: [],
        timer: setTimeout(() => void undo(a), durationS * 1_000),
      };
      active.set(id, a);
      remember(fault);
      log(`applied ${fault.action} ${fault.target} (${id}) for ${durationS} s`);
      return { ...fault };
    },
    active: () => [...active.values()].map((a) => ({ ...a.fault })),
    history: () => past.map((f) => ({ ...f })),
    undone(id) {
      const a = active.get(id);
      if (!a) {
        const f = past.find((x) => x.id === id);
        return Promise.resolve(f ? { ...f } : undefined);
      }
      return new Promise((resolve) => a.waiters.push((f) => resolve({ ...f })));
    },
    async close() {
      closed = true;
      await Promise.all([...active.values()].map(undo));
    },
  };
}
