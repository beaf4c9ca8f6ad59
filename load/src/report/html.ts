// Escaping and number formatting shared by the report pages; everything is inlined, nothing fetched.
export function esc(value: unknown): string {
  return String(value)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "n/a";
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtUs(us: number | null | undefined): string {
  return us === null || us === undefined ? "n/a" : fmtMs(us / 1000);
}

export function fmtPct(share: number | null | undefined, digits = 2): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return "n/a";
  return `${(share * 100).toFixed(digits)}%`;
}

export function fmtNum(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "n/a";
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export const STYLE = `
:root { color-scheme: light; --fg:#1d2330; --muted:#5b6474; --line:#d9dee7; --bg:#ffffff; --panel:#f6f8fb;
  --ok:#1a7f37; --bad:#c62828; --fault:#d9480f; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); max-width: 1180px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.sub { color: var(--muted); margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card .k { color: var(--muted); font-size: 12px; } .card .v { font-size: 19px; font-weight: 600; }
.ok { color: var(--ok); } .bad { color: var(--bad); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600; font-size: 12px; color: #fff; }
.badge.ok { background: var(--ok); color: #fff; } .badge.bad { background: var(--bad); color: #fff; }
.chart { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 8px; margin: 8px 0 14px; }
.chart svg { display: block; width: 100%; height: auto; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
pre.json { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px; overflow: auto;
  font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.j-key { color: #0b5cad; } .j-str { color: #1a7f37; } .j-num { color: #9a3412; } .j-lit { color: #7c3aed; }
.note { color: var(--muted); font-size: 12.5px; }
tr.alert td { color: #5a32a3; }
`;

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** JSON pretty-printed with colour classes, for the audit verdict and the run options. */
export function jsonBlock(value: unknown): string {
  const text = esc(JSON.stringify(value, null, 2) ?? "null");
  const coloured = text.replace(
    /(&quot;(?:[^&]|&(?!quot;))*?&quot;)(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g,
    (
      _m,
      str: string | undefined,
      colon: string | undefined,
      lit: string | undefined,
      num: string | undefined,
    ) => {
      if (str !== undefined)
        return colon ? `<span class="j-key">${str}</span>${colon}` : `<span class="j-str">${str}</span>`;
      if (lit !== undefined) return `<span class="j-lit">${lit}</span>`;
      return `<span class="j-num">${num}</span>`;
    },
  );
  return `<pre class="json">${coloured}</pre>`;
}

/** One damage figure: a count, or a ratio with two digits; negative means "not measured". */
export const fmtDamageValue = (v: number): string => (v < 0 ? "n/a" : fmtNum(v, Number.isInteger(v) ? 0 : 2));

/** Damage figures in their own terms on one line: "ghost units 12, SKUs over-reserved 3"; "—" when none. */
export function fmtDamage(d: Record<string, number> | null | undefined): string {
  if (!d || Object.keys(d).length === 0) return "—";
  return Object.entries(d)
    .map(([k, v]) => `${k} ${fmtDamageValue(v)}`)
    .join(", ");
}

/** A broker probe's verdict on one line, after Jepsen's total-queue check; "—" without a probe. */
export function fmtBroker(b: Record<string, number> | null | undefined): string {
  if (!b) return "—";
  return ["lost", "duplicated", "unexpected", "recovered"]
    .map((k) => `${k} ${fmtDamageValue(b[k] ?? -1)}`)
    .join(", ");
}
