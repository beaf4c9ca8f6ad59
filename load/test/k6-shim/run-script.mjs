// Runs one k6 script's functions under node with the shims (test code only, for k6-scripts.test.ts;
// no load tool: one VU, no arrival rate): setup, a few orders, the fault scenario's function, a few
// more orders, teardown, then handleSummary with the recorded samples and the thresholds judged.
// usage: node run-script.mjs <script.js> <result.json>   (env: __ENV as in k6; SHIM_ORDERS=6)
import fs from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { state } from "./state.mjs";

const [script, resultFile] = process.argv.slice(2);
if (!script || !resultFile) throw new Error("usage: node run-script.mjs <script.js> <result.json>");
register("./hooks.mjs", import.meta.url);

globalThis.__ENV = { ...process.env };
globalThis.__VU = 1;
globalThis.__ITER = 0;
// k6's open(): relative to the script, in the init context.
globalThis.open = (p) => fs.readFileSync(path.resolve(path.dirname(path.resolve(script)), p), "utf8");

const values = (type, samples) => {
  const v = samples.map((s) => s.value);
  const sum = v.reduce((a, b) => a + b, 0);
  if (type === "counter") return { count: sum, rate: sum };
  if (type === "rate")
    return { rate: v.length ? sum / v.length : Number.NaN, passes: sum, fails: v.length - sum };
  if (type === "gauge") return { value: v.at(-1) ?? Number.NaN };
  const sorted = [...v].sort((a, b) => a - b);
  const p = (q) =>
    sorted.length
      ? sorted[Math.min(sorted.length - 1, Math.ceil((q / 100) * sorted.length) - 1)]
      : Number.NaN;
  return {
    avg: sorted.length ? sum / sorted.length : Number.NaN,
    min: sorted[0],
    max: sorted.at(-1),
    med: p(50),
    "p(90)": p(90),
    "p(95)": p(95),
    "p(99)": p(99),
  };
};

/** "http_req_failed{scenario:orders}" + "rate<0.01" -> whether it holds over the recorded samples. */
function judge(key, expr) {
  const [, name, filter] = key.match(/^([\w.]+)(?:\{(.*)\})?$/) ?? [];
  const m = state.metrics[name] ?? { type: "counter", samples: [] };
  const want = Object.fromEntries(
    (filter ?? "")
      .split(",")
      .filter(Boolean)
      .map((kv) => kv.split(":")),
  );
  const samples = m.samples.filter((s) => Object.entries(want).every(([k, v]) => s.tags[k] === v));
  const [, agg, op, limit] = expr.replace(/\s+/g, "").match(/^([\w()]+)(<=|>=|==|!=|<|>)([\d.]+)$/) ?? [];
  if (!agg) throw new Error(`shim: cannot judge threshold "${expr}"`);
  const v = values(m.type, samples)[agg];
  const l = Number(limit);
  const ok = { "<": v < l, "<=": v <= l, ">": v > l, ">=": v >= l, "==": v === l, "!=": v !== l }[op];
  return { ok: Boolean(ok), value: v };
}

const result = { script, phases: [], thresholds: {}, summaryFiles: {}, error: null };
const phase = (name, fn) => {
  result.phases.push(name);
  return fn();
};
try {
  const mod = await import(pathToFileURL(path.resolve(script)).href);
  const scenarios = mod.options.scenarios ?? {};
  result.options = mod.options;
  const data = phase("setup", () => mod.setup?.());
  result.setupData = data;
  const orders = Number(process.env.SHIM_ORDERS ?? 6);
  const runOrders = (from, to) => {
    const exec = scenarios.orders.exec;
    for (let i = from; i < to; i++) {
      state.scenario = "orders";
      state.iterationInTest = i;
      mod[exec](data);
    }
    state.scenario = "";
  };
  phase("orders", () => runOrders(0, Math.ceil(orders / 2)));
  if (scenarios.faults) {
    state.scenario = "faults";
    state.iterationInTest = 0;
    phase("faults", () => mod[scenarios.faults.exec](data));
    state.scenario = "";
  }
  phase("orders", () => runOrders(Math.ceil(orders / 2), orders));
  phase("teardown", () => mod.teardown?.(data));
  const metrics = {};
  for (const [name, m] of Object.entries(state.metrics))
    metrics[name] = { type: m.type, values: values(m.type, m.samples) };
  for (const [key, exprs] of Object.entries(mod.options.thresholds ?? {})) {
    const name = key.replace(/\{.*$/, "");
    for (const expr of exprs) {
      const r = judge(key, expr);
      result.thresholds[`${key} ${expr}`] = r;
      metrics[key] ??= { type: state.metrics[name]?.type ?? "counter", values: {} };
      metrics[key].thresholds = { ...metrics[key].thresholds, [expr]: { ok: r.ok } };
    }
  }
  const files = phase("handleSummary", () => mod.handleSummary?.({ metrics }) ?? {});
  for (const [file, content] of Object.entries(files)) {
    if (file === "stdout") process.stdout.write(content);
    else {
      fs.writeFileSync(file, content);
      result.summaryFiles[file] = content.length;
    }
  }
} catch (e) {
  result.error = e instanceof Error ? `${e.message}\n${e.stack}` : String(e);
}
Object.assign(result, {
  requests: state.requests,
  checks: state.checks,
  testFailed: state.testFailed,
  metricNames: Object.keys(state.metrics),
  auditViolations: (state.metrics.audit_violations?.samples ?? []).reduce((a, s) => a + s.value, 0),
});
fs.writeFileSync(resultFile, JSON.stringify(result, null, 2));
