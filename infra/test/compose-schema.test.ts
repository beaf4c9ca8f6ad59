// The test suite runs without Docker, so `docker compose config` does not check the file: this validates
// it against the Compose Specification's JSON schema instead (the copy dclint ships, draft-07).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import { describe, expect, test } from "vitest";
import { readCompose } from "./compose-file.ts";

// dclint's exports map hides its files, so find the package folder through its package.json.
const dclintDir = path.dirname(createRequire(import.meta.url).resolve("dclint/package.json"));
const schema = JSON.parse(fs.readFileSync(path.join(dclintDir, "schemas/compose.schema.json"), "utf8"));
// It names draft-07 by an https URL Ajv does not know under that spelling; Ajv's default IS draft-07 (and
// checks the schema against that meta-schema), so the reference is checked here and then left out.
const { $schema: draft, ...schemaBody } = schema;
// Strict about unknown keywords and formats (a skipped check would pass silently); the schema's own
// union types and untyped object keywords are how the specification is written.
const validate = new Ajv({ allErrors: true, allowUnionTypes: true, strictTypes: false }).compile(schemaBody);

const problems = (doc: unknown): string[] =>
  validate(doc) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message}`);

describe("docker-compose.yml against the Compose Specification schema", () => {
  test("the file is a valid compose file", () => {
    expect(schema.title).toBe("Compose Specification");
    expect(draft).toMatch(/json-schema\.org\/draft-07\/schema/);
    expect(problems(readCompose())).toEqual([]);
  });

  test("the same check rejects a misspelt key, a wrong type and an unknown depends_on condition", () => {
    const broken = readCompose();
    const order = broken.services.order as Record<string, unknown>;
    order.helthcheck = order.healthcheck;
    order.ports = "127.0.0.1:3001:3001";
    (broken.services["relay-order"] as Record<string, unknown>).depends_on = {
      order: { condition: "service_ready" },
    };
    const found = problems(broken).join("\n");
    expect(found).toMatch(/\/services\/order must NOT have additional properties/);
    expect(found).toMatch(/\/services\/order\/ports must be array/);
    expect(found).toMatch(/\/services\/relay-order\/depends_on\/order\/condition must be equal to one of/);
  });
});
