// The relay process: `tsx packages/outbox/src/relay-main.ts` (configuration: env.ts; parts: relay-process.ts).
import { readOutboxEnv } from "./env.ts";
import { runRelayProcess } from "./relay-process.ts";

try {
  await runRelayProcess(readOutboxEnv());
} catch (e) {
  console.error(`outbox relay could not start: ${(e as Error).message}`);
  process.exit(1);
}
