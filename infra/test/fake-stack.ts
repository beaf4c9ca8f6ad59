// A Stack with a layout and placeholder secrets and no running part: for tests of what is derived from
// the layout alone (app definitions, targets, URLs).
import { type Layout, type Stack, stackLayout } from "../src/index.ts";

export const FAKE_SECRETS = {
  postgresAdmin: "x",
  databases: { order: "x", inventory: "x", points: "x" },
  brokerAdmin: "x",
  broker: { order: "x", inventory: "x", points: "x" },
  erlangCookie: "x",
};

export function fakeStack(layout: Layout = stackLayout({ stackDir: "/nonexistent", portOffset: 0 })): Stack {
  const secrets = FAKE_SECRETS;
  return { layout, secrets, pg: { layout, secrets, binDir: "", isRoot: false } } as unknown as Stack;
}
