// A TCP proxy that can blackhole its connections: a network partition as the client sees it. Sockets
// stay open, nothing is closed or reset, bytes just stop arriving, so clients must notice by their own
// heartbeats and timeouts (the failure a clean "connection refused" never exercises).
// After pg-boss's test/halfOpenProxy.ts, with heal() added and both directions cut.

import type { AddressInfo } from "node:net";
import net from "node:net";

/**
 * "drop": bytes sent either way while blackholed are read and thrown away; after heal() they are gone
 * and the streams resume mid-flight. The realistic "the network ate it" case, and the default.
 * "hold": the proxy stops reading, so bytes wait in kernel buffers (and then in the senders, by TCP
 * flow control) and are delivered in order after heal(): a long stall rather than a loss.
 */
export type BlackholeMode = "drop" | "hold";

export interface BlackholeProxy {
  host: string;
  port: number;
  /** Stops forwarding in both directions without closing any socket, including new connections. */
  blackhole(mode?: BlackholeMode): void;
  /** Forwards again. Connections whose target side closed during the blackhole are closed now. */
  heal(): void;
  close(): Promise<void>;
  readonly state: "forwarding" | BlackholeMode;
  /** Open client connections. */
  readonly connections: number;
  /** Bytes thrown away in "drop" mode, both directions. */
  readonly droppedBytes: number;
}

interface Pair {
  client: net.Socket;
  target: net.Socket;
  targetGone: boolean;
}

export async function startBlackholeProxy(o: {
  targetHost: string;
  targetPort: number;
  /** 0 picks a free port. */
  listenPort?: number;
}): Promise<BlackholeProxy> {
  const pairs = new Set<Pair>();
  let state: "forwarding" | BlackholeMode = "forwarding";
  let droppedBytes = 0;

  function relay(from: net.Socket, to: net.Socket): void {
    from.on("data", (chunk: Buffer) => {
      if (state === "drop") {
        droppedBytes += chunk.length;
        return;
      }
      // Flow control: stop reading until the other side drains, unless a blackhole keeps it paused.
      if (!to.write(chunk)) {
        from.pause();
        to.once("drain", () => {
          if (state === "forwarding") from.resume();
        });
      }
    });
  }

  const server = net.createServer((client) => {
    const target = net.connect({ host: o.targetHost, port: o.targetPort });
    const pair: Pair = { client, target, targetGone: false };
    pairs.add(pair);
    if (state === "hold") {
      client.pause();
      target.pause();
    }
    relay(client, target);
    relay(target, client);
    // Errors are followed by "close"; handling them here keeps them from crashing the process.
    client.on("error", () => {});
    target.on("error", () => {});
    client.on("close", () => {
      pairs.delete(pair);
      target.destroy();
    });
    target.on("close", () => {
      pair.targetGone = true;
      // A partitioned client cannot learn that the far side went away; it finds out after heal().
      if (state === "forwarding") client.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.listenPort ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    host: "127.0.0.1",
    port,
    blackhole(mode = "drop") {
      state = mode;
      for (const p of pairs) {
        p.client.pause();
        p.target.pause();
        // In drop mode the proxy keeps reading (and discarding), so senders are never held back.
        if (mode === "drop") {
          p.client.resume();
          p.target.resume();
        }
      }
    },
    heal() {
      state = "forwarding";
      for (const p of pairs) {
        if (p.targetGone) {
          p.client.destroy();
          continue;
        }
        p.client.resume();
        p.target.resume();
      }
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.target.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    get state() {
      return state;
    },
    get connections() {
      return pairs.size;
    },
    get droppedBytes() {
      return droppedBytes;
    },
  };
}
