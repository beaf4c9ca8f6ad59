// An outbox relay process as the fault lab runs it: the relay's own process with the lab's claim.
import { readOutboxEnv, runRelayProcess } from "@orderflow/outbox";
import { readLabEnv } from "./env.ts";
import { naiveClaim } from "./naive-claim.ts";

const lab = readLabEnv();
runRelayProcess(readOutboxEnv(), lab.pitfall === "no-claim-cas" ? { claim: naiveClaim } : {}).catch((e) => {
  process.stderr.write(`relay failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
