// The points service process, every protection on (see @orderflow/service-runtime's runService).
import { main } from "@orderflow/service-runtime";
import { readEnv } from "./env.ts";
import { pointsService } from "./service.ts";

main(() => pointsService(readEnv()));
