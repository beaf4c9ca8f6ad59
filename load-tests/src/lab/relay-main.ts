// An outbox relay process as the fault lab runs it: the relay's own process with the lab's relay parts.
import { readOutboxEnv, runRelayProcess } from "@orderflow/outbox";
import { readLabEnv } from "./env.ts";
import { commonLabParts } from "./parts.ts";

const parts = commonLabParts(readLabEnv());
runRelayProcess(readOutboxEnv(), {
  ...(parts.claim ? { claim: parts.claim } : {}),
  ...(parts.relayPublisher ? { publisher: parts.relayPublisher } : {}),
  ...(parts.relay ? { config: parts.relay } : {}),
}).catch((e) => {
  process.stderr.write(`relay failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
