import type { AddressInfo } from "node:net";
import net from "node:net";
import { type Stack, stackLayout } from "@orderflow/infra";
import { eventually, observeFor } from "@orderflow/testkit/eventually.ts";
import { afterEach, describe, expect, it } from "vitest";
import { type BlackholeProxy, startBlackholeProxy } from "../src/blackhole-proxy.ts";
import { closeProxies, proxiedBrokerUrls } from "../src/scenarios/network-blackhole.ts";

interface EchoServer {
  port: number;
  /** Everything the server received, in order. */
  received: () => string;
  openConnections: () => number;
  closeClients: () => void;
  /** Writes to every connected client, unprompted. */
  say: (text: string) => void;
  close: () => Promise<void>;
}

async function startEchoServer(): Promise<EchoServer> {
  let received = "";
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => {});
    s.on("data", (chunk) => {
      received += chunk.toString();
      s.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received: () => received,
    openConnections: () => sockets.size,
    closeClients: () => {
      for (const s of sockets) s.destroy();
    },
    say: (text) => {
      for (const s of sockets) s.write(text);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Client {
  socket: net.Socket;
  received: () => string;
  closed: () => boolean;
}

async function connect(port: number): Promise<Client> {
  let received = "";
  let closed = false;
  const socket = net.connect({ host: "127.0.0.1", port });
  socket.on("data", (chunk) => {
    received += chunk.toString();
  });
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return { socket, received: () => received, closed: () => closed };
}

let echo: EchoServer | undefined;
let proxy: BlackholeProxy | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.socket.destroy();
  await proxy?.close();
  await echo?.close();
  proxy = undefined;
  echo = undefined;
});

async function setUp(): Promise<{ echo: EchoServer; proxy: BlackholeProxy; client: Client }> {
  echo = await startEchoServer();
  proxy = await startBlackholeProxy({ targetHost: "127.0.0.1", targetPort: echo.port });
  const client = await connect(proxy.port);
  clients.push(client);
  return { echo, proxy, client };
}

describe("the blackhole proxy", () => {
  it("forwards, then swallows traffic both ways without closing, then forwards again after heal", async () => {
    const { echo, proxy, client } = await setUp();
    client.socket.write("hello");
    await eventually("the echo of hello", () => client.received() === "hello");

    proxy.blackhole();
    client.socket.write("lost");
    await observeFor(300);
    // Nothing reached the server, nothing came back, and no one was told: both sockets still open.
    expect(echo.received()).toBe("hello");
    expect(client.received()).toBe("hello");
    expect(client.closed()).toBe(false);
    expect(echo.openConnections()).toBe(1);
    expect(proxy.connections).toBe(1);
    expect(proxy.droppedBytes).toBe(4);

    proxy.heal();
    client.socket.write("again");
    await eventually("the echo of again", () => client.received() === "helloagain");
    // Dropped, not delayed: "lost" never arrives.
    expect(echo.received()).toBe("helloagain");
  });

  it("swallows the answers too: bytes from the server during a blackhole never reach the client", async () => {
    const { echo, proxy, client } = await setUp();
    client.socket.write("ping");
    await eventually("the first echo", () => client.received() === "ping");
    proxy.blackhole();
    // The server speaks on its own while the client is cut off.
    echo.say("unheard");
    await eventually(
      "the proxy to swallow the server's bytes",
      () => proxy.droppedBytes === "unheard".length,
    );
    await observeFor(100);
    expect(client.received()).toBe("ping");
    proxy.heal();
    echo.say("heard");
    await eventually("the server's next bytes", () => client.received() === "pingheard");
  });

  it("in hold mode delivers what was sent during the blackhole, in order, after heal", async () => {
    const { echo, proxy, client } = await setUp();
    client.socket.write("a");
    await eventually("the first echo", () => client.received() === "a");
    proxy.blackhole("hold");
    client.socket.write("b");
    client.socket.write("c");
    await observeFor(300);
    expect(echo.received()).toBe("a");
    expect(client.closed()).toBe(false);
    proxy.heal();
    await eventually("the held bytes", () => client.received() === "abc");
  });

  it("accepts new connections during a blackhole but forwards nothing until heal", async () => {
    const { echo, proxy } = await setUp();
    proxy.blackhole();
    const late = await connect(proxy.port);
    clients.push(late);
    late.socket.write("early");
    await observeFor(200);
    expect(late.received()).toBe("");
    expect(late.closed()).toBe(false);
    proxy.heal();
    late.socket.write("later");
    await eventually("the echo after heal", () => late.received() === "later");
    expect(echo.received()).toBe("later");
  });

  it("hides the target closing during a blackhole and closes the client only after heal", async () => {
    const { echo, proxy, client } = await setUp();
    client.socket.write("hi");
    await eventually("the echo", () => client.received() === "hi");
    proxy.blackhole();
    echo.closeClients();
    await eventually("the server side to close", () => echo.openConnections() === 0);
    await observeFor(200);
    expect(client.closed()).toBe(false);
    proxy.heal();
    await eventually("the client to be closed after heal", () => client.closed());
  });
});

describe("a service's broker URLs through the proxies", () => {
  it("point at each proxy on loopback, also when the nodes have addresses of their own (--netns)", async () => {
    const layout = stackLayout({ stackDir: "/nonexistent", portOffset: 0 }, { netns: true });
    const secrets = { brokerAdmin: "x", broker: { order: "o", inventory: "i", points: "p" } };
    const facts: Record<string, unknown> = {};
    const env = await proxiedBrokerUrls({ layout, secrets } as unknown as Stack, "inventory", facts);
    try {
      const urls = (env.INVENTORY_AMQP_URLS ?? "").split(",").map((u) => new URL(u));
      const proxies = facts.proxies as BlackholeProxy[];
      expect(layout.rabbitmq.nodes.every((n) => n.host !== "127.0.0.1")).toBe(true);
      expect(urls.map((u) => [u.hostname, Number(u.port)])).toEqual(
        proxies.map((p) => ["127.0.0.1", p.port]),
      );
      expect(urls.every((u) => u.username === "inventory-svc" && u.pathname === "/orderflow")).toBe(true);
    } finally {
      await closeProxies(facts);
    }
  });
});
