// Errors Node's HTTP parser meets before fastify sees a request (malformed HTTP, headers past the size
// limit, a request not received within requestTimeout). Node would answer them in its own shape; here
// they get problem JSON like every other error, written straight to the socket.
import type { Socket } from "node:net";
import { PROBLEM_CONTENT_TYPE } from "./error-handler.ts";
import { PROBLEMS, type ProblemCode, problemBody } from "./problems.ts";

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

function codeFor(errorCode: string | undefined): ProblemCode {
  if (errorCode === "HPE_HEADER_OVERFLOW") return "HEADERS_TOO_LARGE";
  if (errorCode === "ERR_HTTP_REQUEST_TIMEOUT" || errorCode === "ERR_HTTP_HEADERS_TIMEOUT")
    return "REQUEST_TIMEOUT";
  return "MALFORMED_REQUEST";
}

export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  // Nothing to answer on a connection the client already dropped.
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = codeFor(err.code);
  const { status } = PROBLEMS[code];
  const body = JSON.stringify(problemBody(code, err.code));
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
