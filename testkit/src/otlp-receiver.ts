// An OTLP/HTTP traces receiver for tests: an HTTP server on a free port that accepts POST /v1/traces in
// both encodings the exporters speak (application/json and application/x-protobuf, optionally gzipped),
// decodes each request into plain spans and keeps them. The protobuf side is a small hand-written
// decoder of the few fields of opentelemetry/proto/trace/v1 a test reads, so no protobuf library is needed.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  /** The resource's service.name. */
  service: string;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** How the request carrying it was encoded. */
  encoding: "json" | "protobuf";
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporters add /v1/traces). */
  url: string;
  spans(): ReceivedSpan[];
  /** Requests that could not be decoded, with why (a test asserts there are none). */
  errors(): string[];
  close(): Promise<void>;
}

// --- protobuf wire format: varints, length-delimited fields, fixed 32/64 -----------------------------

interface Field {
  no: number;
  wire: number;
  /** Varint value (wire 0), or undefined. */
  int?: bigint;
  /** Bytes of a length-delimited field (wire 2) or of a fixed field (wire 1, 5). */
  bytes?: Buffer;
}

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error("truncated varint");
    const b = buf[pos++] as number;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [key, p1] = readVarint(buf, pos);
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    pos = p1;
    if (wire === 0) {
      const [v, p2] = readVarint(buf, pos);
      out.push({ no, wire, int: v });
      pos = p2;
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      const end = p2 + Number(len);
      if (end > buf.length) throw new Error("truncated field");
      out.push({ no, wire, bytes: buf.subarray(p2, end) });
      pos = end;
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      out.push({ no, wire, bytes: buf.subarray(pos, pos + n) });
      pos += n;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const sub = (fs: Field[], no: number) =>
  fs.filter((f) => f.no === no && f.bytes).map((f) => f.bytes as Buffer);
const one = (fs: Field[], no: number) => sub(fs, no)[0];
const intOf = (fs: Field[], no: number) => Number(fs.find((f) => f.no === no)?.int ?? 0n);

function anyValueProto(buf: Buffer): AttributeValue {
  const f = fields(buf)[0];
  if (!f) return "";
  if (f.no === 1) return (f.bytes as Buffer).toString("utf8");
  if (f.no === 2) return f.int === 1n;
  if (f.no === 3) return Number(BigInt.asIntN(64, f.int ?? 0n));
  if (f.no === 4) return (f.bytes as Buffer).readDoubleLE(0);
  return `(unsupported AnyValue field ${f.no})`;
}

function attributesProto(kvs: Buffer[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of kvs) {
    const fs = fields(kv);
    const key = one(fs, 1)?.toString("utf8") ?? "";
    const value = one(fs, 2);
    out[key] = value ? anyValueProto(value) : "";
  }
  return out;
}

/** ExportTraceServiceRequest: resource_spans(1) -> resource(1).attributes(1), scope_spans(2) -> spans(2). */
function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of sub(fields(body), 1)) {
    const rsf = fields(rs);
    const resource = one(rsf, 1);
    const service = String(resource ? (attributesProto(sub(fields(resource), 1))["service.name"] ?? "") : "");
    for (const ss of sub(rsf, 2)) {
      for (const s of sub(fields(ss), 2)) {
        const f = fields(s);
        const status = one(f, 15);
        spans.push({
          service,
          traceId: one(f, 1)?.toString("hex") ?? "",
          spanId: one(f, 2)?.toString("hex") ?? "",
          parentSpanId: one(f, 4)?.toString("hex") ?? "",
          name: one(f, 5)?.toString("utf8") ?? "",
          kind: intOf(f, 6),
          attributes: attributesProto(sub(f, 9)),
          statusCode: status ? intOf(fields(status), 3) : 0,
          encoding: "protobuf",
        });
      }
    }
  }
  return spans;
}

// --- JSON (OTLP/JSON: ids as hex, enums as numbers) ------------------------------------------------

interface JsonKeyValue {
  key: string;
  value?: {
    stringValue?: string;
    boolValue?: boolean;
    intValue?: number | string;
    doubleValue?: number;
  };
}

function attributesJson(kvs: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value: v = {} } of kvs ?? []) {
    out[key] =
      v.stringValue ??
      v.boolValue ??
      (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
      v.doubleValue ??
      "";
  }
  return out;
}

function decodeJson(body: Buffer): ReceivedSpan[] {
  const req = JSON.parse(body.toString("utf8")) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: JsonKeyValue[];
          status?: { code?: number };
        }[];
      }[];
    }[];
  };
  const spans: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const service = String(attributesJson(rs.resource?.attributes)["service.name"] ?? "");
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        spans.push({
          service,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          kind: s.kind,
          attributes: attributesJson(s.attributes),
          statusCode: s.status?.code ?? 0,
          encoding: "json",
        });
  }
  return spans;
}

export async function startOtlpReceiver(host = "127.0.0.1"): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const errors: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const type = String(req.headers["content-type"] ?? "");
      try {
        if (req.method !== "POST" || req.url !== "/v1/traces") throw new Error(`${req.method} ${req.url}`);
        let body: Buffer = Buffer.concat(chunks);
        if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
        const json = type.startsWith("application/json");
        if (!json && !type.startsWith("application/x-protobuf")) throw new Error(`content-type ${type}`);
        received.push(...(json ? decodeJson(body) : decodeProtobuf(body)));
        // An empty ExportTraceServiceResponse: full success.
        res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
        res.end(json ? "{}" : "");
      } catch (e) {
        errors.push(`${type}: ${(e as Error).message}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    spans: () => [...received],
    errors: () => [...errors],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
