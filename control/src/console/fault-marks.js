// Which faults to draw on the charts and how: a band while something was held down (a timed fault until
// it was undone; a stop or node kill until the matching start), a line for an instant (an app kill the
// supervisor heals, a PostgreSQL restart, poison published, a start).

// What a fault takes down, as a key its matching start shares; null: nothing stays down.
function downKey(f) {
  switch (f.action) {
    case "kill-node":
    case "stop-node":
      return `node:${nodeOf(f)}`;
    case "stop-broker":
      return "broker";
    case "stop-redis":
      return "redis";
    case "stop":
      return `app:${f.target}`;
    default:
      return null;
  }
}

function upKey(f) {
  switch (f.action) {
    case "start-node":
      return `node:${nodeOf(f)}`;
    case "start-broker":
      return "broker";
    case "start-redis":
      return "redis";
    case "start":
      return `app:${f.target}`;
    default:
      return null;
  }
}

// "leader:QUEUE" names a node only once resolved: the fault's detail says which it was.
function nodeOf(f) {
  const node = f.detail && typeof f.detail.node === "string" ? f.detail.node : f.target;
  return String(node ?? "").split("@")[0];
}

const seconds = (iso) => (iso ? Date.parse(iso) / 1000 : Number.NaN);

export function faultLabel(f) {
  const target = f.target && f.target !== f.action ? ` ${f.target}` : "";
  return `${f.action}${target}${f.durationS ? ` (${f.durationS} s)` : ""}`;
}

/**
 * Faults (any order, each once) -> marks {kind: "band" | "line", from, to?, label, open?} in seconds,
 * those overlapping [minS, maxS] only. `nowS` closes a band that is still open.
 */
export function faultMarks(faults, nowS, minS, maxS) {
  const sorted = [...faults].sort((a, b) => seconds(a.startedAt) - seconds(b.startedAt));
  const marks = [];
  const openDown = new Map();
  for (const f of sorted) {
    const at = seconds(f.startedAt);
    if (Number.isNaN(at)) continue;
    if (f.durationS) {
      const undone = seconds(f.undoneAt);
      const to = Number.isNaN(undone) ? nowS : undone;
      marks.push({ kind: "band", from: at, to, label: faultLabel(f), open: Number.isNaN(undone) });
      continue;
    }
    const down = downKey(f);
    if (down) {
      const mark = { kind: "band", from: at, to: nowS, label: faultLabel(f), open: true };
      openDown.set(down, mark);
      marks.push(mark);
      continue;
    }
    const up = upKey(f);
    if (up) {
      // A node's start ends a whole-broker stop too; the broker's start ends every node's fault.
      const ends = [...openDown.keys()].filter(
        (k) =>
          k === up ||
          (up.startsWith("node:") && k === "broker") ||
          (up === "broker" && k.startsWith("node:")),
      );
      for (const k of ends) {
        const held = openDown.get(k);
        held.to = at;
        held.open = false;
        openDown.delete(k);
      }
    }
    // An app kill is healed by its supervisor within seconds: a line, not a band.
    marks.push({ kind: "line", from: at, label: faultLabel(f), heal: Boolean(up) });
  }
  return marks.filter((m) => (m.to ?? m.from) >= minS && m.from <= maxS);
}
