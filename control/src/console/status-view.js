// The numbers (data-metric), the component tiles (data-tile, data-state) and the queue table, from a
// flow snapshot. Built with DOM nodes and textContent only: nothing from the API is parsed as HTML.

const PARKING = /\.parking$/;
const RETRY = /\.retry\.[^.]+$/;

/** The queues consumers work from: neither a parking lot nor a retry tier. */
export function workQueues(flow) {
  return (flow.queues ?? []).filter((q) => !PARKING.test(q.name) && !RETRY.test(q.name));
}

function fmt(value, digits) {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  return Number(value).toFixed(digits);
}

function setMetric(name, value, digits = 0) {
  for (const el of document.querySelectorAll(`[data-metric="${CSS.escape(name)}"]`)) {
    el.textContent = fmt(value, digits);
    el.dataset.value = value === null || value === undefined ? "" : String(value);
  }
}

export function showNumbers(flow) {
  setMetric("orders-per-second", flow.ordersAcceptedPerSecond, 1);
  setMetric("final-per-second", flow.ordersFinalPerSecond, 1);
  setMetric("latency-p50", flow.latencyMs?.p50, 0);
  setMetric("latency-p99", flow.latencyMs?.p99, 0);
  for (const [service, o] of Object.entries(flow.outbox ?? {})) {
    setMetric(`outbox-backlog-${service}`, o?.pending, 0);
  }
  const parked = Object.values(flow.parkingLots ?? {}).reduce((sum, n) => sum + (Number(n) || 0), 0);
  setMetric("parking-total", parked, 0);
  showQueues(flow);
}

function showQueues(flow) {
  const body = document.getElementById("queue-rows");
  const rows = (flow.queues ?? []).map((q) => {
    const tr = document.createElement("tr");
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = q.name;
    const messages = document.createElement("td");
    messages.dataset.metric = `queue-depth-${q.name}`;
    messages.textContent = fmt(q.messages, 0);
    messages.dataset.value = String(q.messages ?? "");
    const consumers = document.createElement("td");
    consumers.textContent = fmt(q.consumers, 0);
    tr.append(name, messages, consumers);
    return tr;
  });
  body.replaceChildren(...rows);
}

/** Every component the flow reports, as {key, label, kind, up}, in the order the tiles show them. */
export function components(flow) {
  return [
    ...(flow.nodes ?? []).map((n) => ({ key: n.name, label: n.name, kind: "broker node", up: n.up })),
    { key: "redis", label: "redis", kind: "cache", up: flow.redis?.up },
    { key: "postgres", label: "postgres", kind: "database", up: flow.postgres?.up },
    ...(flow.services ?? []).map((s) => ({ key: s.name, label: s.name, kind: s.kind, up: s.up })),
  ];
}

const tiles = new Map();

export function showTiles(flow) {
  const list = document.getElementById("tiles");
  const all = components(flow);
  if (all.map((c) => c.key).join("\n") !== [...tiles.keys()].join("\n")) {
    tiles.clear();
    list.replaceChildren(
      ...all.map((c) => {
        const li = document.createElement("li");
        li.className = "tile";
        li.dataset.tile = c.key;
        const name = document.createElement("span");
        name.className = "tile-name";
        name.textContent = c.label;
        const kind = document.createElement("span");
        kind.className = "tile-kind";
        kind.textContent = c.kind;
        const state = document.createElement("span");
        state.className = "tile-state";
        li.append(name, kind, state);
        tiles.set(c.key, { li, state });
        return li;
      }),
    );
  }
  for (const c of all) {
    const t = tiles.get(c.key);
    const s = c.up === true ? "up" : c.up === false ? "down" : "unknown";
    if (t.li.dataset.state !== s) {
      t.li.dataset.state = s;
      t.state.textContent = s;
      t.li.setAttribute("aria-label", `${c.label}: ${s}`);
    }
  }
}
