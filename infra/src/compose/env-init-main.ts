// Entry point of `pnpm env:init` (env-init.ts).
import { main } from "./env-init.ts";

process.exitCode = main();
