// The points service as the fault lab runs it: its own composition with the lab's parts.
import { createLogger } from "@orderflow/logging";
import { pointsService, readEnv } from "@orderflow/points";
import { main } from "@orderflow/service-runtime";
import { readLabEnv } from "./env.ts";
import { grantPointsUnguarded } from "./naive-steps.ts";
import { commonLabParts } from "./parts.ts";
import { warnLabOn } from "./warn.ts";

main(() => {
  const env = readEnv();
  const lab = readLabEnv();
  warnLabOn(createLogger({ name: "points", level: env.logLevel }), lab);
  const parts = commonLabParts(lab);
  // The naive consumer drops the steps' state guards too.
  if (lab.pitfall === "no-consumer-dedup") parts.steps = { "inventory.reserved": grantPointsUnguarded };
  return pointsService(env, parts);
});
