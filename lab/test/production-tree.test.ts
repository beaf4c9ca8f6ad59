// Whatever sits in packages/ and services/ is copied into other people's systems: the fault lab's
// pitfalls must stay in lab/, where the lab composes services with them.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { LAB_PITFALLS } from "../src/pitfalls/pitfalls.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// Comments may say that the fault lab composes a service through its seams; code may not carry a
// pitfall, a naive variant or a lab switch.
const LAB_WORDS = new RegExp(
  [
    "pitfall|naive|ORDERFLOW_LAB|\\blab[A-Z]\\w*|\\bLab[A-Z]\\w*|\\blab\\s*[:?=]|\\.lab\\b",
    ...LAB_PITFALLS,
  ].join("|"),
);

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "generated" ? [] : sourceFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

function productionFiles(): string[] {
  return ["packages", "services"]
    .flatMap((top) => fs.readdirSync(path.join(root, top)).map((name) => path.join(root, top, name, "src")))
    .flatMap(sourceFiles);
}

test("no production source file under packages/ or services/ carries a pitfall or a lab switch", () => {
  const files = productionFiles();
  expect(files.length).toBeGreaterThan(50);
  const offenders = files.flatMap((f) =>
    fs
      .readFileSync(f, "utf8")
      .split("\n")
      .flatMap((line, i) =>
        LAB_WORDS.test(line) ? [`${path.relative(root, f)}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
  expect(offenders).toEqual([]);
});

test("no production consumer can be told to give up its acks (noAck): auto-ack lives in lab/ only", () => {
  const offenders = productionFiles()
    .filter((f) => /\bnoAck\b|ackMode/.test(fs.readFileSync(f, "utf8")))
    .map((f) => path.relative(root, f));
  expect(offenders).toEqual([]);
});
