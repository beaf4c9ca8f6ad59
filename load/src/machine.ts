// "Where it ran", for reports and the summary table: figures from one machine mean little without it.
import os from "node:os";

export function describeMachine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.replace(/\s+/g, " ").trim() ?? "unknown CPU";
  const gib = Math.round(os.totalmem() / 2 ** 30);
  const load = os.loadavg()[0]?.toFixed(1) ?? "?";
  return `${cpus.length} cores (${model}), ${gib} GiB, Node ${process.version}, ${os.type()} ${os.release()}, load average ${load} at the end`;
}
