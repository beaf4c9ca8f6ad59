// Steps the constant-arrival-rate executor up against a local endpoint in another process and reports
// the highest rate it offers cleanly: achieved within 1% of offered, nothing dropped, p99 under 50 ms.
// tsx load/scripts/max-clean-rate.ts [rate ...]
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseCli } from "@orderflow/config";
import { runLoad } from "../src/runner.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const USAGE = "usage: tsx load/scripts/max-clean-rate.ts [rate ...]  (requests/s, each > 0)";
const { positionals, fail } = parseCli(
  { usage: USAGE, options: {}, positionals: { max: 20 } },
  process.argv.slice(2),
);
const rates = positionals.map(Number);
if (rates.some((n) => !(n > 0))) fail(`every rate must be a number above 0, got ${positionals.join(" ")}`);
const steps = rates.length > 0 ? rates : [1000, 2000, 4000, 6000, 8000, 10_000, 12_000, 14_000];

const server = spawn(process.execPath, ["--import", "tsx", path.join(here, "echo-server.ts")], {
  stdio: ["ignore", "pipe", "inherit"],
});
const port = await new Promise<number>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("echo server did not start in 20 s")), 20_000);
  server.stdout.on("data", (chunk: Buffer) => {
    const m = /PORT (\d+)/.exec(chunk.toString());
    if (m) {
      clearTimeout(timer);
      resolve(Number(m[1]));
    }
  });
});

const target = `http://127.0.0.1:${port}`;
let best = 0;
try {
  // Warm both processes' JITs first; the first seconds of a cold Node process are several times slower.
  await runLoad(
    "warm-up",
    {
      target,
      scenario: {
        executor: "ramping-arrival-rate",
        stages: [{ target: 8000, duration: "4s" }],
        preAllocatedVUs: 128,
      },
    },
    () => ({ method: "GET", path: "/" }),
  );
  for (const rate of steps) {
    // CPU time of this process per request: a figure that holds even when other work shares the cores.
    const cpuBefore = process.cpuUsage();
    const r = await runLoad(
      `rate-${rate}`,
      {
        target,
        scenario: { executor: "constant-arrival-rate", rate, duration: "5s", preAllocatedVUs: 128 },
        gracefulStop: "5s",
      },
      () => ({ method: "GET", path: "/" }),
    );
    const cpu = process.cpuUsage(cpuBefore);
    const s = r.summary;
    const cpuPerRequestUs = (cpu.user + cpu.system) / Math.max(1, s.iterations.completed);
    const p99ms = (s.latencyUs?.p99 ?? 0) / 1000;
    const clean = s.iterations.dropped === 0 && s.achievedPerSecond >= rate * 0.99 && p99ms < 50;
    if (clean) best = rate;
    console.log(
      `${String(rate).padStart(6)}/s offered  ${s.achievedPerSecond.toFixed(0).padStart(6)}/s achieved  dropped ${String(s.iterations.dropped).padStart(6)}  p50 ${((s.latencyUs?.p50 ?? 0) / 1000).toFixed(2)} ms  p99 ${p99ms.toFixed(2)} ms  max ${((s.latencyUs?.max ?? 0) / 1000).toFixed(1)} ms  generator CPU ${cpuPerRequestUs.toFixed(0)} µs/req  ${clean ? "clean" : "NOT clean"}`,
    );
  }
} finally {
  server.kill("SIGTERM");
}
console.log(`max clean rate: ${best}/s`);
