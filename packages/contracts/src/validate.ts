// Checks an incoming (type, version, payload) against the registry. Returns a reason instead of throwing:
// the consumer runtime turns each reason into a parking-lot header.
import { contracts, type EventPayload, type EventType, isEventType } from "./registry.ts";

export type InvalidReason = "unknown-type" | "unsupported-version" | "invalid-payload";

export type Validated =
  | { ok: true; type: EventType; version: number; payload: EventPayload<EventType> }
  | { ok: false; reason: InvalidReason; detail: string };

export function validateEvent(type: string | undefined, version: unknown, payload: unknown): Validated {
  if (!type || !isEventType(type)) return { ok: false, reason: "unknown-type", detail: `type ${type}` };
  const v = typeof version === "string" && /^\d+$/.test(version) ? Number(version) : version;
  const versions: Record<number, (typeof contracts)[EventType]["versions"][1]> = contracts[type].versions;
  const schema = typeof v === "number" ? versions[v] : undefined;
  if (typeof v !== "number" || !schema) {
    return {
      ok: false,
      reason: "unsupported-version",
      detail: `${type} version ${String(version)}; supported: ${Object.keys(versions).join(", ")}`,
    };
  }
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    return { ok: false, reason: "invalid-payload", detail };
  }
  return { ok: true, type, version: v, payload: parsed.data };
}

/** For producers: throws when the payload does not match the current version of its type. */
export function assertPayload<T extends EventType>(type: T, payload: EventPayload<T>): EventPayload<T> {
  const r = validateEvent(type, contracts[type].current, payload);
  if (!r.ok) throw new Error(`${type}: ${r.reason}: ${r.detail}`);
  return r.payload as EventPayload<T>;
}
