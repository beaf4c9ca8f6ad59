// JSON text laid out as the repository's formatter (Biome) lays out its JSON files, so a generated
// dashboard is already formatted: `biome check` passes on it and a regeneration changes no byte.
// Biome keeps an object expanded when its source is, and puts an array of plain values on one line
// when that line fits in the 110-column limit (biome.json).
const LINE_WIDTH = 110;
const INDENT = "  ";

type Plain = null | boolean | number | string;
type Json = Plain | Json[] | { [key: string]: Json };

const isPlain = (v: Json): v is Plain => v === null || typeof v !== "object";

function render(value: Json, depth: number, lead: number, trail: number): string {
  if (isPlain(value)) return JSON.stringify(value);
  const pad = INDENT.repeat(depth + 1);
  const close = INDENT.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every(isPlain)) {
      const flat = `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
      if (lead + flat.length + trail <= LINE_WIDTH) return flat;
    }
    const items = value.map((v, i) => pad + render(v, depth + 1, pad.length, i < value.length - 1 ? 1 : 0));
    return `[\n${items.join(",\n")}\n${close}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([k, v], i) => {
    const key = `${pad}${JSON.stringify(k)}: `;
    return key + render(v, depth + 1, key.length, i < entries.length - 1 ? 1 : 0);
  });
  return `{\n${lines.join(",\n")}\n${close}}`;
}

/** `value` as a formatted JSON file, ending with a newline. */
export function jsonText(value: unknown): string {
  return `${render(JSON.parse(JSON.stringify(value)) as Json, 0, 0, 0)}\n`;
}
