// Pitfall no-relay-sweep: the after-commit publish is the only way out of the outbox. The sweep's claim
// finds nothing, so a row whose fast-path publish did not happen (the process died right after the
// commit) or did not succeed (the broker node died under it; the row is released, due again) stays
// pending forever. Compare packages/outbox/src/relay.ts, whose sweep is the "兜底" behind the fast path.
import { type ClaimStrategy, leasedClaim } from "@orderflow/outbox";

export const sweeplessClaim: ClaimStrategy = {
  due: async () => [],
  byIds: leasedClaim.byIds,
};
