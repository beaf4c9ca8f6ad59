// The error catalog: every error a service answers with has a stable code, an HTTP status and a title,
// and goes out as RFC 9457 problem JSON (`application/problem+json`). Clients branch on `code`.
export const PROBLEMS = {
  MALFORMED_REQUEST: { status: 400, title: "The request is not valid HTTP" },
  MALFORMED_URL: { status: 400, title: "The URL is not validly encoded" },
  MALFORMED_JSON: { status: 400, title: "The request body is not valid JSON" },
  VALIDATION_FAILED: { status: 400, title: "The request does not match the schema" },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, title: "The Idempotency-Key header is required" },
  UNAUTHORIZED: { status: 401, title: "A valid bearer token is required" },
  NOT_FOUND: { status: 404, title: "No such resource" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    title: "The Idempotency-Key was used with a different request body",
  },
  INVALID_STATE: { status: 409, title: "The resource is not in a state that allows this" },
  REQUEST_TIMEOUT: { status: 408, title: "The request was not received in time" },
  BODY_TOO_LARGE: { status: 413, title: "The request body is too large" },
  URI_TOO_LONG: { status: 414, title: "A path parameter is too long" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "The request body must be application/json" },
  RATE_LIMITED: { status: 429, title: "Too many requests; retry later" },
  HEADERS_TOO_LARGE: { status: 431, title: "The request headers are too large" },
  NOT_READY: { status: 503, title: "A dependency is unavailable" },
  INTERNAL: { status: 500, title: "Internal error" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail?: string;
  instance?: string;
  errors?: { path: string; message: string }[];
  [extra: string]: unknown;
}

/** Thrown by handlers; the error handler turns it into problem JSON. */
export class HttpProblem extends Error {
  readonly code: ProblemCode;
  readonly extra: Record<string, unknown>;
  constructor(code: ProblemCode, detail?: string, extra: Record<string, unknown> = {}) {
    super(detail ?? PROBLEMS[code].title);
    this.code = code;
    this.extra = extra;
  }
}

export function problemBody(
  code: ProblemCode,
  detail?: string,
  extra: Record<string, unknown> = {},
): ProblemBody {
  const p = PROBLEMS[code];
  return {
    type: `https://orderflow.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`,
    title: p.title,
    status: p.status,
    code,
    ...(detail ? { detail } : {}),
    ...extra,
  };
}
