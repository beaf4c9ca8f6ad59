// The clients (packages/*/src, services/*/src) against the RabbitMQ that compose pins: nothing 4.3 denies
// (global QoS, transient queues), and failed deliveries given back in the one way 4.3 still counts.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../src/index.ts";
import { composeService, readCompose } from "./compose-file.ts";

/** The .ts files under packages/<name>/src and services/<name>/src. */
function clientSources(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "node_modules" || e.name === "generated" ? [] : walk(p);
      return e.name.endsWith(".ts") ? [p] : [];
    });
  return ["packages", "services"].flatMap((top) =>
    fs
      .readdirSync(path.join(repoRoot, top))
      .map((pkg) => path.join(repoRoot, top, pkg, "src"))
      .filter((src) => fs.existsSync(src))
      .flatMap(walk),
  );
}

describe("the clients and the pinned RabbitMQ version agree", () => {
  const sources = clientSources().map((f) => ({
    file: path.relative(repoRoot, f),
    text: fs.readFileSync(f, "utf8"),
  }));

  test("no client asks for global QoS or declares a transient queue", () => {
    expect(sources.length).toBeGreaterThan(20);
    for (const { file, text } of sources) {
      expect(text, file).not.toMatch(/\.prefetch\([^)]*,\s*true\s*\)/);
      expect(text, file).not.toMatch(/assertQueue\([^)]*durable:\s*false/);
    }
  });

  test("consumers give failed deliveries back with basic.reject, the only return 4.3 counts toward the limit", () => {
    // rabbitmq-server #15387 (4.3): basic.reject(requeue) counts toward x-delivery-limit, basic.nack does
    // not, so a handler that keeps failing on a nack-requeued message would loop instead of being parked.
    const nackers = sources.filter(({ text }) => /\.nack\(/.test(text)).map((s) => s.file);
    expect(nackers).toEqual([]);
    const rejecters = sources
      .filter(({ text }) => /\.reject\([^)]*,\s*true\s*\)/.test(text))
      .map((s) => s.file);
    // settle.ts gives every delivery back (a failed retry or parking, and an unexpected failure).
    expect(rejecters).toEqual(expect.arrayContaining(["packages/messaging/src/settle.ts"]));
    const image = composeService(readCompose(), "rabbitmq-1").image ?? "";
    const version = /^rabbitmq:(\d+)\.(\d+)\.\d+-management$/.exec(image);
    expect(version, image).not.toBeNull();
    expect([Number(version?.[1]), Number(version?.[2])]).toEqual([4, 3]);
  });
});
