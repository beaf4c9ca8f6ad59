// The scenario picker: the fault lab's scenarios (GET /scenarios), a Run button (data-scenario), and
// the run in progress or last finished, polled until it settles, with its verdict, checks and report.
import { getJson, postJson } from "./api.js";

const POLL_MS = 2000;
let watching = null;

function text(tag, content, className) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (className) el.className = className;
  return el;
}

function optionalNumber(id) {
  const v = document.getElementById(id).value.trim();
  return v === "" ? undefined : Number(v);
}

// A report the browser can open is a URL; a path on the control service's machine is shown as text.
function reportLink(label, ref) {
  if (typeof ref !== "string" || ref.length === 0) return null;
  if (/^(https?:\/\/|\/reports\/)/.test(ref)) {
    const a = document.createElement("a");
    a.href = ref;
    a.textContent = label;
    a.rel = "noopener";
    a.target = "_blank";
    return a;
  }
  return text("code", ref);
}

function showRun(run) {
  document.getElementById("scenario-name").textContent = run ? run.scenario : "none";
  const state = document.querySelector('[data-metric="scenario-state"]');
  state.textContent = run?.state ?? "—";
  state.dataset.value = run?.state ?? "";
  const verdict = document.querySelector('[data-metric="scenario-verdict"]');
  const v = run?.verdict
    ? run.verdict.passed
      ? "passed"
      : "failed"
    : run?.state === "error"
      ? "error"
      : "—";
  verdict.textContent = v;
  verdict.dataset.value = v === "—" ? "" : v;
  verdict.dataset.kind = v;
  const checks = (run?.verdict?.checks ?? []).map((c) => {
    const li = text("li", `${c.ok ? "✓" : "✗"} ${c.name}${c.detail ? `: ${c.detail}` : ""}`);
    li.className = c.ok ? "ok" : "error";
    return li;
  });
  document.getElementById("scenario-checks").replaceChildren(...checks);
  const report = document.getElementById("scenario-report");
  const links = [reportLink("HTML report", run?.report?.html), reportLink("JSON", run?.report?.json)].filter(
    Boolean,
  );
  report.replaceChildren(
    ...(links.length > 0 ? [text("span", "Report: "), ...links.flatMap((l) => [l, " "])] : []),
  );
  document.getElementById("scenario-run").dataset.state = run?.state ?? "none";
}

async function watch(id) {
  if (watching === id) return;
  watching = id;
  while (watching === id) {
    try {
      const run = await getJson(`/scenarios/runs/${encodeURIComponent(id)}`);
      showRun(run);
      if (run.state !== "running") break;
    } catch (e) {
      document.querySelector('[data-metric="scenario-state"]').textContent = `unknown (${e.message})`;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (watching === id) watching = null;
}

async function run(name, button) {
  const body = {};
  const durationS = optionalNumber("scenario-duration");
  const rate = optionalNumber("scenario-rate");
  if (durationS !== undefined) body.durationS = durationS;
  if (rate !== undefined) body.rate = rate;
  button.disabled = true;
  try {
    const r = await postJson(`/scenarios/${encodeURIComponent(name)}/run`, body);
    if (!r.ok) {
      document.querySelector('[data-metric="scenario-state"]').textContent = `not started: ${r.message}`;
      return;
    }
    showRun(r.body.run);
    void watch(r.body.run.id);
  } finally {
    button.disabled = false;
  }
}

// One select (grouped by kind: the lab has a few dozen scenarios), its summary, one Run button whose
// data-scenario names the scenario selected.
export async function initScenarioPanel() {
  const select = document.getElementById("scenario-select");
  const button = document.getElementById("scenario-run-button");
  const summary = document.getElementById("scenario-summary");
  const byName = new Map();
  const pick = () => {
    const s = byName.get(select.value);
    button.dataset.scenario = select.value;
    button.textContent = `Run ${select.value}`;
    summary.textContent = s
      ? `${s.summary ?? ""}${s.durationS ? ` (${s.durationS} s at ${s.rate} orders/s)` : ""}`
      : "";
  };
  select.addEventListener("change", pick);
  button.addEventListener("click", () => {
    if (!button.disabled && button.dataset.scenario) void run(button.dataset.scenario, button);
  });
  try {
    const { scenarios } = await getJson("/scenarios");
    const kinds = [...new Set(scenarios.map((s) => s.kind ?? "other"))];
    select.replaceChildren(
      ...kinds.map((kind) => {
        const g = document.createElement("optgroup");
        g.label = kind;
        for (const s of scenarios.filter((x) => (x.kind ?? "other") === kind)) {
          byName.set(s.name, s);
          const o = text("option", s.name);
          o.value = s.name;
          g.append(o);
        }
        return g;
      }),
    );
    select.disabled = false;
    button.disabled = false;
    pick();
  } catch (e) {
    summary.textContent = `scenarios unavailable: ${e.message}`;
    summary.className = "small error";
  }
}

/** The flow names the run in progress, whoever started it (the console, the CLI, k6): follow it. */
export function followScenario(flow) {
  const s = flow.scenario;
  if (s?.id && s.state === "running" && watching !== s.id) void watch(s.id);
}
