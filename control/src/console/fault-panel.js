// The fault buttons (one per action and target the stack has, some timed), the answer to the last one,
// and the list of recent faults. Buttons carry data-fault, data-target and data-duration (seconds).
import { getJson, postJson } from "./api.js";
import { faultLabel } from "./fault-marks.js";
import { workQueues } from "./status-view.js";

const NODE_HOLD_S = 20;
const BROKER_HOLD_S = 10;
const REDIS_HOLD_S = 15;
const APP_HOLD_S = 15;

// Every fault seen (GET /faults history and the flow's active ones), by id: the charts mark them all.
const known = new Map();

export function allFaults() {
  return [...known.values()];
}

function remember(faults) {
  for (const f of faults ?? []) if (f?.id) known.set(f.id, { ...known.get(f.id), ...f });
}

function button(text, action, target, durationS) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.dataset.fault = action;
  if (target) b.dataset.target = target;
  if (durationS) b.dataset.duration = String(durationS);
  const what = `${action}${target ? ` ${target}` : ""}${durationS ? ` for ${durationS} s` : ""}`;
  b.setAttribute("aria-label", what);
  b.title = what;
  if (action.startsWith("start")) b.classList.add("heal");
  return b;
}

function group(title, buttons) {
  const box = document.createElement("fieldset");
  box.className = "fault-group";
  const legend = document.createElement("legend");
  legend.textContent = title;
  box.append(legend, ...buttons);
  return box;
}

function groups(flow) {
  const nodes = (flow.nodes ?? []).map((n) => n.name);
  const queues = workQueues(flow).map((q) => q.name);
  const apps = (flow.services ?? []).map((s) => s.name);
  return [
    ...nodes.map((n) =>
      group(n, [
        button("Kill", "kill-node", n),
        button("Stop", "stop-node", n),
        button(`Stop ${NODE_HOLD_S} s`, "stop-node", n, NODE_HOLD_S),
        button("Start", "start-node", n),
      ]),
    ),
    ...(queues.length > 0
      ? [
          group(
            "Quorum leader of",
            queues.map((q) => button(`Kill · ${q}`, "kill-node", `leader:${q}`)),
          ),
        ]
      : []),
    group("Whole broker", [
      button("Stop", "stop-broker"),
      button(`Stop ${BROKER_HOLD_S} s`, "stop-broker", undefined, BROKER_HOLD_S),
      button("Start", "start-broker"),
    ]),
    group("redis", [
      button("Stop", "stop-redis"),
      button(`Stop ${REDIS_HOLD_S} s`, "stop-redis", undefined, REDIS_HOLD_S),
      button("Start", "start-redis"),
    ]),
    group("postgres", [button("Restart", "restart-postgres")]),
    ...apps.map((a) =>
      group(a, [
        button("Kill", "kill", a),
        button("Stop", "stop", a),
        button(`Stop ${APP_HOLD_S} s`, "stop", a, APP_HOLD_S),
        button("Start", "start", a),
      ]),
    ),
    group("Poison messages", [
      ...queues.map((q) => button(q, "publish-poison", q)),
      button("All work queues", "publish-poison", "all"),
    ]),
  ];
}

function showResult(text, kind) {
  const el = document.getElementById("fault-result");
  el.textContent = text;
  el.dataset.kind = kind;
}

async function fire(b) {
  const body = { action: b.dataset.fault };
  if (b.dataset.target) body.target = b.dataset.target;
  if (b.dataset.duration) body.durationS = Number(b.dataset.duration);
  const what = b.getAttribute("aria-label");
  b.disabled = true;
  b.setAttribute("aria-busy", "true");
  showResult(`${what}…`, "pending");
  const started = performance.now();
  try {
    const r = await postJson("/faults", body);
    if (!r.ok) {
      showResult(`${what} refused: ${r.message}`, "error");
      return;
    }
    const fault = r.body?.fault;
    if (fault) remember([fault]);
    const took = ((performance.now() - started) / 1000).toFixed(1);
    showResult(`${fault ? faultLabel(fault) : what}: done in ${took} s`, "ok");
    renderLog();
  } finally {
    b.disabled = false;
    b.removeAttribute("aria-busy");
  }
}

let builtFor = "";

/** (Re)builds the buttons when the stack's nodes, queues or apps change; keeps the known faults. */
export function showFaultControls(flow) {
  remember(flow.faults);
  const shape = JSON.stringify([
    (flow.nodes ?? []).map((n) => n.name),
    workQueues(flow).map((q) => q.name),
    (flow.services ?? []).map((s) => s.name),
  ]);
  if (shape === builtFor) return;
  builtFor = shape;
  document.getElementById("fault-groups").replaceChildren(...groups(flow));
}

export function initFaultPanel() {
  document.getElementById("fault-groups").addEventListener("click", (e) => {
    const b = e.target instanceof Element ? e.target.closest("button[data-fault]") : null;
    if (b && !b.disabled) void fire(b);
  });
  const refresh = async () => {
    try {
      const { active, history } = await getJson("/faults");
      remember(history);
      remember(active);
      renderLog();
    } catch {
      // The flow's connection status already says the service is unreachable.
    }
  };
  void refresh();
  setInterval(refresh, 5000);
}

function clock(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : "";
}

function renderLog() {
  const items = allFaults()
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))
    .slice(0, 12)
    .map((f) => {
      const li = document.createElement("li");
      const node = f.detail && typeof f.detail.node === "string" ? ` → ${f.detail.node}` : "";
      let end = "";
      if (f.undoError) end = ` · undo failed: ${f.undoError}`;
      else if (f.undoneAt) end = ` · undone ${clock(f.undoneAt)}`;
      else if (f.undoAt) end = ` · undo at ${clock(f.undoAt)}`;
      li.textContent = `${clock(f.startedAt)} ${faultLabel(f)}${node}${end}`;
      if (f.undoError) li.className = "error";
      return li;
    });
  document.getElementById("fault-log").replaceChildren(...items);
}
