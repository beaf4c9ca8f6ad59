// Requests for JSON configs, which cannot hold a function: a template whose strings may contain
// {{uuid}} (one fresh UUID per iteration, the same one everywhere in it) and {{iteration}}.
import { randomUUID } from "node:crypto";
import type { RequestSpec } from "./http.ts";
import type { RequestFn } from "./runner.ts";

export interface RequestTemplate {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON (with a content-type unless one is given). */
  body?: unknown;
}

function fill(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === "string")
    return value.replace(/\{\{(uuid|iteration)\}\}/g, (_m, k: string) => vars[k] ?? "");
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  }
  return value;
}

export function requestFromTemplate(t: RequestTemplate): RequestFn {
  if (typeof t?.path !== "string" || !t.path.startsWith("/"))
    throw new Error('request.path must start with "/"');
  const json = t.body !== undefined && typeof t.body !== "string";
  const hasContentType = Object.keys(t.headers ?? {}).some((k) => k.toLowerCase() === "content-type");
  return ({ iteration }) => {
    const vars = { uuid: randomUUID(), iteration: String(iteration) };
    const headers = fill(t.headers ?? {}, vars) as Record<string, string>;
    if (json && !hasContentType) headers["content-type"] = "application/json";
    const body =
      t.body === undefined
        ? null
        : json
          ? JSON.stringify(fill(t.body, vars))
          : (fill(t.body, vars) as string);
    const spec: RequestSpec = {
      method: t.method ?? "GET",
      path: fill(t.path, vars) as string,
      headers,
      body,
    };
    return spec;
  };
}
