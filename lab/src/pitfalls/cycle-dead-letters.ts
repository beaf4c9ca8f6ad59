// Pitfall dlx-cycle: no parking lot. A delivery that can never succeed (past its last retry tier, or
// poison from the start) is dead-lettered into a TTL retry queue that dead-letters it back into the work
// queue, as the common DLX + TTL recipe does when nothing ever takes a message out of the loop. It cycles
// forever, nobody is told, and every lap costs a delivery, a transaction attempt and a publish.
// Compare packages/messaging/src/settle.ts, where such a message ends in the parking lot with its reason.
import { ATTEMPT_HEADER, type Settle } from "@orderflow/messaging";

export const cycleDeadLetters = (own: Settle): Settle => ({
  ...own,
  park: (d, reason, detail) => {
    const p = d.msg.properties;
    const attempt = Number(p.headers?.[ATTEMPT_HEADER] ?? 0) + 1;
    return own.retry(d, {
      type: String(p.type ?? ""),
      messageId: String(p.messageId ?? ""),
      // The shortest tier, so the laps show within a lab run (the common recipe uses a 30 s TTL).
      tier: "1s",
      attempt: Number.isFinite(attempt) ? attempt : 1,
      error: `${reason}: ${detail}`,
      infrastructure: false,
    });
  },
});
