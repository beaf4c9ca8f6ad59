// Loads what `cli.ts run --config` names: a JSON config with a request template, or a TS/JS module
// exporting `options` and a `request` function (the orderflow scenarios are modules).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { RunOptions } from "./config.ts";
import { type RequestTemplate, requestFromTemplate } from "./request-template.ts";
import type { RequestFn } from "./runner.ts";

export interface LoadedScenario {
  name: string;
  options: RunOptions;
  request: RequestFn;
  /** Keep a ledger of 2xx responses (NAME.ledger.jsonl beside the run JSON). */
  ledger: boolean;
  /** Header holding the idempotency key in ledger entries. */
  keyHeader?: string;
}

interface JsonConfig extends RunOptions {
  name?: string;
  request: RequestTemplate;
  ledger?: boolean;
  keyHeader?: string;
}

interface ScenarioModule {
  name?: string;
  options: RunOptions;
  request: RequestFn;
  ledger?: boolean;
  keyHeader?: string;
}

const baseName = (file: string) => path.basename(file).replace(/\.(json|[cm]?[jt]s)$/, "");

export async function loadScenario(file: string): Promise<LoadedScenario> {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new Error(`no such config: ${abs}`);
  if (abs.endsWith(".json")) {
    const cfg = JSON.parse(fs.readFileSync(abs, "utf8")) as JsonConfig;
    const { name, request, ledger, keyHeader, ...options } = cfg;
    return {
      name: name ?? baseName(abs),
      options,
      request: requestFromTemplate(request),
      ledger: ledger ?? false,
      ...(keyHeader ? { keyHeader } : {}),
    };
  }
  const mod = (await import(pathToFileURL(abs).href)) as Partial<ScenarioModule> & {
    default?: ScenarioModule;
  };
  const m = (mod.default ?? mod) as Partial<ScenarioModule>;
  if (!m.options || typeof m.request !== "function") {
    throw new Error(
      `${file} must export \`options\` (run options) and \`request\` (a function), or a default of both`,
    );
  }
  return {
    name: m.name ?? baseName(abs),
    options: m.options,
    request: m.request,
    ledger: m.ledger ?? false,
    ...(m.keyHeader ? { keyHeader: m.keyHeader } : {}),
  };
}
