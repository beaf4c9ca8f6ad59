// Line charts as inline SVG, generated here so the report needs no script or library from anywhere.
import { esc } from "./html.ts";

export interface ChartSeries {
  name: string;
  color: string;
  /** [x, y]; a null y leaves a gap in the line. */
  points: Array<[number, number | null]>;
  dashed?: boolean;
}

export interface ChartMarker {
  x: number;
  label: string;
  /** Fault marks label the top of the plot; alert marks (Alertmanager's view) the bottom, in purple. */
  kind?: "fault" | "alert-fired" | "alert-resolved";
}

export interface ChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  markers?: ChartMarker[];
  /** Shaded spans, e.g. from "fault injected" to "fault healed". */
  windows?: Array<{ from: number; to: number }>;
  /** Log scale suits latencies, where a 2 s stall and 2 ms steady state share one chart. */
  logY?: boolean;
  yMax?: number;
  formatY?: (y: number) => string;
  xDomain?: [number, number];
}

// Spread (Math.min(...xs)) overflows the stack on long series; these do not.
const minOf = (values: number[], fallback: number) => values.reduce((a, b) => Math.min(a, b), fallback);
const maxOf = (values: number[], fallback: number) => values.reduce((a, b) => Math.max(a, b), fallback);

const W = 960;
/** Alert marks' colour: a violet darker than any series' colour. */
const ALERT = "#5a32a3";
const H = 316;
const PAD = { left: 84, right: 16, top: 50, bottom: 44 };

function niceStep(range: number, target: number): number {
  const raw = range / Math.max(1, target);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
}

function linearTicks(min: number, max: number, target: number): number[] {
  const step = niceStep(max - min || 1, target);
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9 && ticks.length < 50; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return ticks;
}

export function lineChart(spec: ChartSpec): string {
  const xs = spec.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = spec.series.flatMap((s) => s.points.map((p) => p[1]).filter((y): y is number => y !== null));
  const [x0, x1] = spec.xDomain ?? [minOf(xs, 0), maxOf(xs, 1)];
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const sx = (x: number) => PAD.left + ((x - x0) / (x1 - x0 || 1)) * plotW;

  let sy: (y: number) => number;
  let yTicks: number[];
  if (spec.logY) {
    const positive = ys.filter((y) => y > 0);
    const lo = 10 ** Math.floor(Math.log10(minOf(positive, 1)));
    const hi = 10 ** Math.ceil(Math.log10(maxOf(positive, lo * 10)));
    const l0 = Math.log10(lo);
    const l1 = Math.log10(hi);
    sy = (y: number) => PAD.top + plotH - ((Math.log10(Math.max(y, lo)) - l0) / (l1 - l0)) * plotH;
    yTicks = [];
    for (let e = l0; e <= l1 && yTicks.length < 20; e++) yTicks.push(10 ** e);
  } else {
    const hi = spec.yMax ?? maxOf(ys, 1) * 1.08;
    sy = (y: number) => PAD.top + plotH - (y / hi) * plotH;
    yTicks = linearTicks(0, hi, 5);
  }
  const fy = spec.formatY ?? ((y: number) => String(y));

  const out: string[] = [];
  out.push(
    `<svg id="${esc(spec.id)}" class="chart-svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(spec.title)}" xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" font-size="12">`,
  );
  out.push(
    `<text x="${PAD.left}" y="20" font-size="14" font-weight="600" fill="#1d2330">${esc(spec.title)}</text>`,
  );

  for (const w of spec.windows ?? []) {
    const a = sx(Math.max(x0, w.from));
    const b = sx(Math.min(x1, w.to));
    if (b > a) {
      out.push(
        `<rect class="fault-window" x="${a.toFixed(1)}" y="${PAD.top}" width="${(b - a).toFixed(1)}" height="${plotH}" fill="#d9480f" fill-opacity="0.08"/>`,
      );
    }
  }

  for (const t of yTicks) {
    const y = sy(t).toFixed(1);
    out.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y}" y2="${y}" stroke="#d9dee7"/>`);
    out.push(
      `<text x="${PAD.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle" fill="#5b6474">${esc(fy(t))}</text>`,
    );
  }
  for (const t of linearTicks(x0, x1, 10)) {
    const x = sx(t).toFixed(1);
    out.push(
      `<line x1="${x}" x2="${x}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH + 4}" stroke="#5b6474"/>`,
    );
    out.push(
      `<text x="${x}" y="${PAD.top + plotH + 16}" text-anchor="middle" fill="#5b6474">${esc(t)}</text>`,
    );
  }
  out.push(
    `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#5b6474"/>`,
    `<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#5b6474"/>`,
    `<text x="${PAD.left + plotW / 2}" y="${H - 6}" text-anchor="middle" fill="#5b6474">${esc(spec.xLabel)}</text>`,
    `<text transform="translate(14 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#5b6474">${esc(spec.yLabel)}</text>`,
  );

  // Lines stay inside the plot even when a series runs past the x domain.
  const clipId = `${spec.id}-clip`;
  out.push(
    `<clipPath id="${esc(clipId)}"><rect x="${PAD.left}" y="${PAD.top - 2}" width="${plotW}" height="${plotH + 4}"/></clipPath>`,
  );
  for (const s of spec.series) {
    let d = "";
    let pen = false;
    for (const [x, y] of s.points) {
      if (y === null || !Number.isFinite(y) || (spec.logY && y <= 0)) {
        pen = false;
        continue;
      }
      d += `${pen ? "L" : "M"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`;
      pen = true;
    }
    if (d === "") continue;
    out.push(
      `<path class="series" data-series="${esc(s.name)}" clip-path="url(#${esc(clipId)})" d="${d}" fill="none" stroke="${esc(s.color)}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ""}><title>${esc(s.name)}</title></path>`,
    );
  }

  let faults = 0;
  let alerts = 0;
  for (const m of spec.markers ?? []) {
    if (m.x < x0 || m.x > x1) continue;
    const x = sx(m.x).toFixed(1);
    const kind = m.kind ?? "fault";
    // Labels alternate in height so two marks close together stay readable.
    if (kind === "fault") {
      const ly = PAD.top + 12 + (faults++ % 3) * 14;
      out.push(
        `<g class="fault-marker" data-label="${esc(m.label)}"><line x1="${x}" x2="${x}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#d9480f" stroke-width="1.5" stroke-dasharray="4 3"/><text x="${Number(x) + 4}" y="${ly}" fill="#d9480f" font-size="11.5">${esc(m.label)}</text></g>`,
      );
      continue;
    }
    const ly = PAD.top + plotH - 8 - (alerts++ % 3) * 14;
    const dash = kind === "alert-resolved" ? ' stroke-dasharray="2 3"' : "";
    // A label near the right edge runs leftwards, so it is not cut off by the plot's end.
    const right = Number(x) > W * 0.6;
    const text = `x="${Number(x) + (right ? -4 : 4)}" y="${ly}"${right ? ' text-anchor="end"' : ""}`;
    out.push(
      `<g class="alert-marker ${kind}" data-label="${esc(m.label)}"><line x1="${x}" x2="${x}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="${ALERT}" stroke-width="2"${dash}/><text ${text} fill="${ALERT}" font-size="11.5">${esc(m.label)}</text></g>`,
    );
  }

  // Legend on its own line under the title, so long titles never run into it.
  let lx = PAD.left;
  for (const s of spec.series) {
    out.push(
      `<g class="legend"><line x1="${lx.toFixed(1)}" x2="${(lx + 16).toFixed(1)}" y1="34" y2="34" stroke="${esc(s.color)}" stroke-width="3"${s.dashed ? ' stroke-dasharray="4 3"' : ""}/><text x="${(lx + 20).toFixed(1)}" y="38" fill="#1d2330">${esc(s.name)}</text></g>`,
    );
    lx += 34 + s.name.length * 7;
  }
  out.push("</svg>");
  return out.join("");
}
