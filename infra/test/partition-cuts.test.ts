// What each partition kind cuts, on the three nodes, and what each node still reaches.
import { describe, expect, test } from "vitest";
import { stackLayout } from "../src/layout.ts";
import { describeCuts, PARTITION_KINDS, partitionCuts, partitionFocus } from "../src/partitions.ts";

const nodes = [1, 2, 3];

describe("partition kinds", () => {
  test("halves and isolate-node cut the chosen node off from both others, both ways", () => {
    for (const kind of ["halves", "isolate-node"] as const)
      expect(describeCuts(partitionCuts(kind, nodes, 2), nodes)).toEqual({
        "rabbit-1": ["rabbit-3"],
        "rabbit-2": [],
        "rabbit-3": ["rabbit-1"],
      });
  });

  test("bridge cuts the two other nodes from each other and leaves the bridge reaching both", () => {
    const cuts = partitionCuts("bridge", nodes, 3);
    expect(cuts).toEqual([
      { from: 1, to: 2 },
      { from: 2, to: 1 },
    ]);
    expect(describeCuts(cuts, nodes)["rabbit-3"]).toEqual(["rabbit-1", "rabbit-2"]);
  });

  test("majorities-ring gives each node a majority of its own, none the same", () => {
    const reaches = describeCuts(partitionCuts("majorities-ring", nodes, 1), nodes);
    const majorities = Object.entries(reaches).map(([n, peers]) => [n, ...peers].sort().join(","));
    expect(new Set(majorities).size).toBe(3);
    for (const peers of Object.values(reaches)) expect(peers).toHaveLength(1);
  });

  test("a node outside the cluster is refused", () => {
    expect(() => partitionCuts("halves", nodes, 4)).toThrow(/not one of/);
  });

  test("every kind cuts at least one link and never a node from itself", () => {
    for (const kind of PARTITION_KINDS) {
      const cuts = partitionCuts(kind, nodes, 1);
      expect(cuts.length).toBeGreaterThan(0);
      expect(cuts.every((c) => c.from !== c.to)).toBe(true);
    }
  });

  test("with no node named, halves singles out the busiest leader and the other kinds one of the nodes", async () => {
    let asked = 0;
    const busiest = async () => {
      asked++;
      return 3;
    };
    expect(await partitionFocus("halves", nodes, busiest)).toBe(3);
    for (const kind of ["isolate-node", "bridge", "majorities-ring"] as const)
      for (let i = 0; i < 20; i++) expect(nodes).toContain(await partitionFocus(kind, nodes, busiest));
    expect(asked).toBe(1);
  });
});

describe("the namespaces' names and addresses", () => {
  test.each([0, 249, 250, 20_000])(
    "fit Linux's 15-character interface names and differ per offset (%i)",
    (o) => {
      const a = stackLayout({ stackDir: "/tmp/a", portOffset: o }, { netns: true });
      const b = stackLayout({ stackDir: "/tmp/a", portOffset: o + 1 }, { netns: true });
      const net = a.rabbitmq.network;
      expect(net?.bridge.length).toBeLessThanOrEqual(15);
      for (const n of a.rabbitmq.nodes) expect(n.netns?.hostLink.length).toBeLessThanOrEqual(15);
      expect(a.rabbitmq.nodes.map((n) => n.host)).not.toEqual(b.rabbitmq.nodes.map((n) => n.host));
      expect(new Set(a.rabbitmq.nodes.map((n) => n.host)).size).toBe(3);
    },
  );

  test("without --netns the nodes stay on loopback with their usual names", () => {
    const l = stackLayout({ stackDir: "/tmp/a", portOffset: 0 });
    expect(l.rabbitmq.network).toBeUndefined();
    expect(l.rabbitmq.nodes.map((n) => [n.name, n.host])).toEqual([
      ["rabbit-1@localhost", "127.0.0.1"],
      ["rabbit-2@localhost", "127.0.0.1"],
      ["rabbit-3@localhost", "127.0.0.1"],
    ]);
  });
});
