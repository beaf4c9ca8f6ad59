// The order service process, every protection on (see @orderflow/service-runtime's runService).
import { main } from "@orderflow/service-runtime";
import { readEnv } from "./env.ts";
import { orderService } from "./service.ts";

main(() => orderService(readEnv()));
