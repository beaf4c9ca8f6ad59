// Telling a database error caused by the values sent from one caused by the database itself. The same
// PostgreSQL error reaches us in three shapes: node-postgres' own error (`code`), Prisma's driver-adapter
// error (`cause.originalCode`), and that error wrapped by the Prisma client (`meta.driverAdapterError`).

// Classes 00-58, F0, HV, P0, XX: never a Node error code (EPIPE) nor a Prisma one (P2002).
const SQLSTATE = /^(?:[0-5][0-9A-Z]|F0|HV|P0|XX)[0-9A-Z]{3}$/;

/** The SQLSTATE of a PostgreSQL error in any of its shapes, or undefined when there is none. */
export function sqlStateOf(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): string | undefined => {
    if (typeof e !== "object" || e === null || seen.has(e) || depth > 5) return undefined;
    seen.add(e);
    const o = e as Record<string, unknown>;
    for (const k of ["originalCode", "code"] as const) {
      const v = o[k];
      if (typeof v === "string" && SQLSTATE.test(v)) return v;
    }
    for (const k of ["cause", "meta", "driverAdapterError"] as const) {
      const found = visit(o[k], depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return visit(err, 0);
}

/**
 * True when PostgreSQL refused the values themselves (class 22, data exception: a NUL byte, a lone
 * surrogate, an integer out of range, an impossible date; class 54, program limit exceeded: a key too
 * large to index). Sending the same values again cannot succeed.
 */
export function isDataError(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state !== undefined && (state.startsWith("22") || state.startsWith("54"));
}
