// The four live charts (uPlot), over the last few minutes, moving each second, with the fault marks drawn
// on their canvas. uPlot comes from /vendor/uPlot.iife.min.js (the npm package, served locally).
import { faultMarks } from "./fault-marks.js";

export const WINDOW_S = 180;
const HEIGHT = 220;
const PALETTE = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#0891b2", "#db2777", "#4b5563"];
const BAND = "rgba(220, 38, 38, 0.12)";
const LINE = "rgba(220, 38, 38, 0.85)";
const HEAL = "rgba(22, 163, 74, 0.85)";

// The page's own clock never draws the x axis: the flow's `at` does, so a slow tab shows the server's time.
let nowS = Date.now() / 1000;
let faultsNow = () => [];

function markerPlugin() {
  return {
    hooks: {
      draw: [
        (u) => {
          const { left, top, width, height } = u.bbox;
          const min = u.scales.x.min;
          const max = u.scales.x.max;
          const ctx = u.ctx;
          const px = (s) => Math.min(left + width, Math.max(left, u.valToPos(s, "x", true)));
          ctx.save();
          ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
          ctx.textBaseline = "top";
          // Labels of faults close together go on rows below each other instead of over each other;
          // a fault that began before the window has its band but no label.
          const rowsEnd = [];
          const gap = 4 * devicePixelRatio;
          const rowHeight = 14 * devicePixelRatio;
          for (const m of faultMarks(faultsNow(), nowS, min, max)) {
            const x0 = px(m.from);
            if (m.kind === "band") {
              ctx.fillStyle = BAND;
              ctx.fillRect(x0, top, Math.max(1, px(m.to) - x0), height);
            }
            if (m.from < min) continue;
            ctx.strokeStyle = m.heal ? HEAL : LINE;
            ctx.lineWidth = Math.max(1, devicePixelRatio * 1.5);
            ctx.beginPath();
            ctx.moveTo(x0, top);
            ctx.lineTo(x0, top + height);
            ctx.stroke();
            const w = ctx.measureText(m.label).width;
            // Near the right edge a label goes to the left of its line.
            const x = x0 + gap + w > left + width ? x0 - gap - w : x0 + gap;
            let row = rowsEnd.findIndex((end) => end < x);
            if (row === -1) row = rowsEnd.length;
            if (row > 3) continue;
            rowsEnd[row] = x + w + gap;
            ctx.fillStyle = m.heal ? HEAL : LINE;
            ctx.fillText(m.label, x, top + gap + row * rowHeight);
          }
          ctx.restore();
        },
      ],
    },
  };
}

function makeChart(el, seriesNames, unit) {
  const opts = {
    width: Math.max(280, el.clientWidth),
    height: HEIGHT,
    plugins: [markerPlugin()],
    scales: {
      x: { time: true, range: () => [nowS - WINDOW_S, nowS] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
    },
    axes: [{}, { label: unit, size: 56 }],
    series: [
      {},
      ...seriesNames.map((name, i) => ({
        label: name,
        stroke: PALETTE[i % PALETTE.length],
        width: 2,
        spanGaps: false,
        points: { show: false },
      })),
    ],
    legend: { live: false },
  };
  const u = new globalThis.uPlot(opts, [[], ...seriesNames.map(() => [])], el);
  new ResizeObserver(() => u.setSize({ width: Math.max(280, el.clientWidth), height: HEIGHT })).observe(el);
  return u;
}

/**
 * One chart whose series may change (queues appear): rebuilt when the names change.
 * pick(sample) -> {name: value | null}.
 */
function liveChart(id, unit, pick) {
  const el = document.getElementById(id);
  let names = [];
  let chart = null;
  return (samples) => {
    const latest = samples.length > 0 ? pick(samples[samples.length - 1]) : {};
    const want = Object.keys(latest);
    if (!chart || want.join("\n") !== names.join("\n")) {
      chart?.destroy();
      names = want;
      chart = makeChart(el, names, unit);
    }
    const xs = samples.map((s) => s.t);
    const columns = names.map((n) => samples.map((s) => pick(s)[n] ?? null));
    chart.setData([xs, ...columns]);
  };
}

export function createCharts(getFaults) {
  faultsNow = getFaults;
  const samples = [];
  const charts = [
    liveChart("chart-rate", "orders/s", (s) => ({ accepted: s.accepted, final: s.final })),
    liveChart("chart-latency", "ms", (s) => ({ p50: s.p50, p99: s.p99 })),
    liveChart("chart-outbox", "rows", (s) => s.outbox),
    liveChart("chart-queues", "messages", (s) => s.queues),
  ];
  return {
    /** Adds one flow snapshot and redraws. */
    push(flow, workQueues) {
      const t = Date.parse(flow.at) / 1000;
      if (Number.isNaN(t)) return;
      const last = samples[samples.length - 1];
      if (last && t <= last.t) return;
      nowS = t;
      samples.push({
        t,
        accepted: flow.ordersAcceptedPerSecond ?? null,
        final: flow.ordersFinalPerSecond ?? null,
        p50: flow.latencyMs?.p50 ?? null,
        p99: flow.latencyMs?.p99 ?? null,
        outbox: Object.fromEntries(
          Object.entries(flow.outbox ?? {}).map(([k, v]) => [k, v?.pending ?? null]),
        ),
        queues: Object.fromEntries(workQueues.map((q) => [q.name, q.messages ?? null])),
      });
      while (samples.length > 0 && samples[0].t < t - WINDOW_S) samples.shift();
      // How much history the charts hold: a reader (or a test) can tell a fresh page from a full one.
      document.getElementById("charts").dataset.samples = String(samples.length);
      for (const draw of charts) draw(samples);
    },
  };
}
