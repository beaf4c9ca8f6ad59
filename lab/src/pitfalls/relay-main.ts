// An outbox relay process as the fault lab runs it: the relay's own process with the lab's relay parts.
import { createLogger } from "@orderflow/logging";
import { readOutboxEnv, runRelayProcess } from "@orderflow/outbox";
import { readLabEnv } from "./env.ts";
import { commonLabParts } from "./parts.ts";
import { warnLabOn } from "./warn.ts";

const env = readOutboxEnv();
const lab = readLabEnv();
warnLabOn(createLogger({ name: "outbox-relay", level: env.logLevel }), lab);
runRelayProcess(env, commonLabParts(lab).relay).catch((e) => {
  process.stderr.write(`relay failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
