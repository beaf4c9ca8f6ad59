// The live console: GET / and its script and style, plus uPlot's from its npm package, all served by
// the control service itself so the page works on a machine without internet access (no CDN, no
// build step). A missing file fails the start, not a viewer; each request reads its file (a few KB), so
// an edited console shows at the next reload without restarting the service.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";

const CONSOLE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "console");
const require = createRequire(import.meta.url);

// Everything the page loads comes from this origin; the stream and the API calls too. Inline scripts
// and styles are refused, so nothing the API returns (a fault's detail, an error) can run as code.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

interface Asset {
  route: string;
  file: string;
  type: string;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

// The page at /, each of its modules and its stylesheet at /console/<file>, uPlot's under /vendor/.
function assets(): Asset[] {
  const own = fs
    .readdirSync(CONSOLE_DIR)
    .filter((f) => path.extname(f) in TYPES)
    .map((f) => ({
      route: `/console/${f}`,
      file: path.join(CONSOLE_DIR, f),
      type: TYPES[path.extname(f)] as string,
    }));
  return [
    { route: "/", file: path.join(CONSOLE_DIR, "index.html"), type: "text/html; charset=utf-8" },
    ...own,
    {
      route: "/vendor/uPlot.iife.min.js",
      file: require.resolve("uplot/dist/uPlot.iife.min.js"),
      type: TYPES[".js"] as string,
    },
    {
      route: "/vendor/uPlot.min.css",
      file: require.resolve("uplot/dist/uPlot.min.css"),
      type: TYPES[".css"] as string,
    },
  ];
}

export function registerConsoleRoutes(app: FastifyInstance): void {
  for (const asset of assets()) {
    fs.accessSync(asset.file, fs.constants.R_OK);
    app.get(asset.route, { schema: { hide: true }, logLevel: "warn" }, async (_req, reply) =>
      reply
        .type(asset.type)
        .header("content-security-policy", CONTENT_SECURITY_POLICY)
        .header("x-content-type-options", "nosniff")
        // The console may have changed since the last load: the browser asks again each time.
        .header("cache-control", "no-cache")
        .send(await fs.promises.readFile(asset.file)),
    );
  }
}
