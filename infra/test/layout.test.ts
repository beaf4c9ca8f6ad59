import { expect, test } from "vitest";
import { allPorts, FORBIDDEN_PORTS, stackLayout } from "../src/layout.ts";

test.each([0, 100, 200, 1000])("the stack binds no standard port and no port twice (offset %i)", (offset) => {
  const ports = allPorts(stackLayout({ stackDir: "/tmp/x", portOffset: offset }));
  expect(new Set(ports).size).toBe(ports.length);
  for (const p of FORBIDDEN_PORTS) expect(ports).not.toContain(p);
});
