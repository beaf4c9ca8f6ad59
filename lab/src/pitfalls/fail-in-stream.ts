// The trigger of the no-ordering experiment, in both the pitfall and its pair: every Nth message of each
// stock stream (by its x-sequence) fails, with a transient error, for a second from its first
// application, so it goes round the first retry tier (1 s) once while the messages behind it arrive. (A
// failure inside a consumer batch splits the batch and the message is tried again alone at once: it
// fails there too, and the retry tier is where it waits.) With the turn check the messages behind it wait
// for it; without, they are applied first and the late one overwrites a newer level with an older one.
import type { SqlTx } from "@orderflow/db";
import type { Step } from "@orderflow/service-runtime";

const HELD_MS = 1_000;

export function failEveryNthInStream(
  step: Step<"inventory.stock-changed", SqlTx>,
  n: number,
): Step<"inventory.stock-changed", SqlTx> {
  const firstTried = new Map<string, number>();
  return async (event, ctx) => {
    const sequence = event.stream?.sequence ?? 0;
    if (sequence > 0 && sequence % n === 0) {
      const id = event.envelope.messageId;
      const since = firstTried.get(id) ?? Date.now();
      firstTried.set(id, since);
      if (Date.now() - since < HELD_MS)
        throw new Error(`sequence ${sequence} of ${event.stream?.key} fails for a second (lab trigger)`);
    }
    return step(event, ctx);
  };
}
