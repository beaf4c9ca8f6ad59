// The few span operations the project needs, on @opentelemetry/api only. While tracing is off (no
// startTracing with an endpoint) `tracer` is undefined and every helper returns at its first line: no
// span object, no context switch, no traceparent formatting on the hot path.
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

export { type Attributes, type Span, SpanKind };

let tracer: Tracer | undefined;

/** Set by startTracing (and cleared by its shutdown); nothing else changes it. */
export function setTracer(t: Tracer | undefined): void {
  tracer = t;
}

/** Whether spans are being recorded in this process. */
export const tracingOn = (): boolean => tracer !== undefined;

// W3C trace context, version 00: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `base` (default: an empty context) holding the remote parent a traceparent names, if it is valid. */
export function contextFromTraceparent(tp: unknown, base: Context = ROOT_CONTEXT): Context {
  const m = typeof tp === "string" ? TRACEPARENT.exec(tp) : null;
  if (!m) return base;
  const sc = {
    traceId: m[1] as string,
    spanId: m[2] as string,
    traceFlags: Number.parseInt(m[3] as string, 16) & 1,
    isRemote: true,
  };
  return isSpanContextValid(sc) ? trace.setSpanContext(base, sc) : base;
}

/** The traceparent that makes `span` the parent of whatever receives it. */
export function traceparentOf(span: Span): string {
  const sc = span.spanContext();
  return `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags & 1}`;
}

/** The traceparent of the active span, or undefined (always when tracing is off). */
export function activeTraceparent(): string | undefined {
  if (!tracer) return undefined;
  const span = trace.getActiveSpan();
  return span && isSpanContextValid(span.spanContext()) ? traceparentOf(span) : undefined;
}

export interface SpanStart {
  kind: SpanKind;
  attributes?: Attributes;
  /** The parent: a traceparent (remote), or a context. Default: the active context. */
  parent?: string | Context | undefined;
}

/** Starts a span, or returns undefined when tracing is off. The caller ends it. */
export function startSpan(name: string, opts: SpanStart): Span | undefined {
  if (!tracer) return undefined;
  const parent =
    typeof opts.parent === "string" || opts.parent === undefined
      ? opts.parent === undefined
        ? context.active()
        : contextFromTraceparent(opts.parent)
      : opts.parent;
  return tracer.startSpan(
    name,
    { kind: opts.kind, ...(opts.attributes ? { attributes: opts.attributes } : {}) },
    parent,
  );
}

/** Runs `fn` with `span` as the active span (what it logs, enqueues or starts becomes the span's). */
export function withActiveSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/**
 * Makes `emitter`'s listeners run with `span` active, whoever emits: a request body's "data" events come
 * from the socket, outside the context the request started in.
 */
export function bindToSpan<E extends object>(span: Span, emitter: E): E {
  return context.bind(trace.setSpan(context.active(), span), emitter);
}

/** Marks a span failed with a short reason. */
export function failSpan(span: Span | undefined, reason: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}

/** A span around `fn`, active while it runs, ended when it settles (failed when it throws). */
export async function inSpan<T>(name: string, opts: SpanStart, fn: () => Promise<T>): Promise<T> {
  const span = startSpan(name, opts);
  if (!span) return fn();
  try {
    return await withActiveSpan(span, fn);
  } catch (e) {
    span.recordException(e instanceof Error ? e : String(e));
    failSpan(span, e instanceof Error ? e.message : String(e));
    throw e;
  } finally {
    span.end();
  }
}

/** Marks the active span failed (nothing when there is none). */
export function failActiveSpan(reason: string): void {
  if (tracer) failSpan(trace.getActiveSpan(), reason);
}

/** Sets an attribute on the active span (nothing when there is none, as always when tracing is off). */
export function annotateActiveSpan(key: string, value: string | number | boolean): void {
  if (tracer) trace.getActiveSpan()?.setAttribute(key, value);
}
