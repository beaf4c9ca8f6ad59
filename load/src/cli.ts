// tsx load/src/cli.ts run --config scenario.json: see cli-commands.ts for the commands.
// First Ctrl-C stops the schedule and lets in-flight requests finish; a second one exits at once.
import { main } from "./cli-commands.ts";
import { readLoadEnv } from "./env.ts";

let interrupts = 0;
const code = await main(process.argv.slice(2), {
  log: (line) => console.log(line),
  env: readLoadEnv(),
  onRun: (run) => {
    process.on("SIGINT", () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      console.log("stopping: finishing in-flight requests (Ctrl-C again to exit now)");
      run.stop();
    });
  },
});
process.exit(code);
