// The fault lab's scenarios from the API: list them, run one in the background (one at a time), read
// its state and verdict, and fetch the report files a run wrote (only files of the reports folder).
import fs from "node:fs";
import path from "node:path";
import { HttpProblem } from "@orderflow/http";
import type { FastifyInstance } from "fastify";
import { ScenarioRunError, type ScenarioRuns } from "./scenario-runs.ts";

const MAX_RUN_S = 600;
const MAX_RATE = 500;
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".jsonl": "application/x-ndjson; charset=utf-8",
};

function parseRunBody(body: unknown): { durationS?: number; rate?: number } {
  if (body === undefined || body === null) return {};
  const bad = (detail: string) => new HttpProblem("VALIDATION_FAILED", detail);
  if (typeof body !== "object" || Array.isArray(body))
    throw bad("the body is a JSON object {durationS?, rate?}");
  const b = body as Record<string, unknown>;
  const extra = Object.keys(b).filter((k) => k !== "durationS" && k !== "rate");
  if (extra.length > 0) throw bad(`unknown field(s) ${extra.join(", ")}; allowed: durationS, rate`);
  const { durationS, rate } = b;
  if (
    durationS !== undefined &&
    !(Number.isInteger(durationS) && (durationS as number) >= 1 && (durationS as number) <= MAX_RUN_S)
  )
    throw bad(`durationS must be an integer 1-${MAX_RUN_S}`);
  if (rate !== undefined && !(typeof rate === "number" && rate > 0 && rate <= MAX_RATE))
    throw bad(`rate must be a number of orders per second above 0, at most ${MAX_RATE}`);
  return {
    ...(durationS === undefined ? {} : { durationS: durationS as number }),
    ...(rate === undefined ? {} : { rate }),
  };
}

export function registerScenarioRoutes(app: FastifyInstance, runs: ScenarioRuns): void {
  app.get("/scenarios", async () => ({ scenarios: runs.list() }));

  app.post<{ Params: { name: string } }>("/scenarios/:name/run", async (req, reply) => {
    const opts = parseRunBody(req.body);
    try {
      const run = runs.start(req.params.name, opts);
      return reply
        .code(202)
        .send({ run: { id: run.id, scenario: run.scenario, state: run.state, startedAt: run.startedAt } });
    } catch (e) {
      if (e instanceof ScenarioRunError)
        throw new HttpProblem(e.status === 404 ? "NOT_FOUND" : "INVALID_STATE", e.message);
      throw e;
    }
  });

  app.get<{ Params: { id: string } }>("/scenarios/runs/:id", async (req) => {
    const run = runs.get(req.params.id);
    if (!run) throw new HttpProblem("NOT_FOUND", `no scenario run ${req.params.id}`);
    return run;
  });

  app.get<{ Params: { "*": string } }>("/reports/*", async (req, reply) => {
    const rel = req.params["*"];
    const missing = () => new HttpProblem("NOT_FOUND", `no report ${rel}`);
    const type = TYPES[path.extname(rel)];
    if (rel.includes("\0") || !type) throw missing();
    let root: string;
    let file: string;
    try {
      // Real paths: "..", absolute paths and symbolic links never lead out of the reports folder.
      root = fs.realpathSync(runs.reportsDir);
      file = fs.realpathSync(path.resolve(root, rel));
    } catch {
      throw missing();
    }
    if (!file.startsWith(root + path.sep) || !fs.statSync(file).isFile()) throw missing();
    return reply.type(type).send(fs.createReadStream(file));
  });
}
