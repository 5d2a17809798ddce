// The trace seam every process shares (docs/operations.md, "Tracing"). Only the OpenTelemetry API is
// used here: without a registered SDK (tracing off, the default) every call is a no-op, spans are not
// recorded and no context is stored or sent. @holdfast/runtime registers the SDK when it is on.
import {
  type Attributes,
  type Context,
  context,
  ProxyTracerProvider,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

export { SpanKind } from '@opentelemetry/api';

/**
 * The trace context a unit of work carries across a process boundary, as W3C Trace Context fields
 * (`traceparent`, `tracestate`): stored with an outbox row or a received event, sent as NATS
 * message headers.
 */
export type TraceCarrier = Record<string, string>;

export const TRACE_FIELDS = ['traceparent', 'tracestate'] as const;

const tracer = trace.getTracer('holdfast');

/** What the API delegates to while no SDK is registered. */
const NO_SDK = new ProxyTracerProvider().getDelegate();

/**
 * Whether an SDK is registered (tracing on, sampled or not). Off, every span and context call is a
 * no-op, so a caller may skip building a span's name and attributes at all.
 */
export function tracingOn(): boolean {
  return (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() !== NO_SDK;
}

/** The active trace context as a carrier, or null when there is none (tracing off, no span). */
export function activeTraceCarrier(): TraceCarrier | null {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/** The context a carrier names (a remote parent), or the root context for none. */
export function contextFromCarrier(carrier: TraceCarrier | null | undefined): Context {
  return carrier?.traceparent ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

/** `traceId` and `spanId` of the active span, for log lines; empty without one. */
export function activeTraceIds(): { traceId?: string; spanId?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

export interface SpanSettings {
  kind: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context when omitted. */
  parent?: Context;
}

/**
 * Runs `work` inside a new active span that ends when it settles; a throw marks the span failed
 * and is rethrown. `work` may mark a failure it handles itself with `failSpan`.
 */
export async function withSpan<T>(name: string, settings: SpanSettings, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = settings.parent ?? context.active();
  return tracer.startActiveSpan(name, { kind: settings.kind, attributes: settings.attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed with the error's message (never its stack or payload). */
export function failSpan(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Starts a span that the caller ends (for work whose start and end are in different callbacks). */
export function startSpan(
  name: string,
  settings: SpanSettings & { links?: { context: ReturnType<Span['spanContext']> }[] },
): {
  span: Span;
  context: Context;
} {
  const parent = settings.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: settings.kind, attributes: settings.attributes, links: settings.links }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** The span context a carrier names, when it is a valid one (for a link to an untrusted parent). */
export function remoteSpanContext(carrier: Record<string, string | string[] | undefined>): ReturnType<Span['spanContext']> | undefined {
  const remote = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
  return remote && trace.isSpanContextValid(remote) ? remote : undefined;
}
