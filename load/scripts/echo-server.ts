// A minimal JSON endpoint in its own process, so measuring the generator does not share its event loop.
import http from "node:http";
import type { AddressInfo } from "node:net";

const body = JSON.stringify({ ok: true });
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`PORT ${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
