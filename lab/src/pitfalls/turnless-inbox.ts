// Pitfall no-ordering, the consumer's half: the inbox still deduplicates by message id, but an ordered
// stream's message is applied whenever it arrives, with no check that it is the next one of its key.
// Compare packages/messaging/src/turn.ts.
import { type Inbox, sqlInbox } from "@orderflow/messaging";

export const turnlessInbox: Inbox = { ...sqlInbox, takeTurn: async () => "apply" };
