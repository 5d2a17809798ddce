import { remoteSpanContext, SpanKind, startSpan, tracingOn } from '@holdfast/logging';
import { context, ROOT_CONTEXT, type Span, SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Probes and scrapes, answered every few seconds: not traced. */
const UNTRACED = /^\/(health|metrics)(\/|$|\?)/;

/**
 * A server span per request, active while its hooks and handler run (so the request's logs carry
 * its trace id and the outbox rows it writes carry its trace context). Every request starts a new
 * trace: a `traceparent` sent by the client becomes a link, not the parent, so a caller cannot make
 * us sample or join its trace (tracing off: the API is a no-op and nothing is recorded).
 */
export function registerRequestTracing(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, Span>();

  app.addHook('onRequest', (request, reply, done) => {
    // Tracing off (no SDK, the default): the span would be a no-op; not even its attributes are built.
    if (!tracingOn() || UNTRACED.test(request.url)) return done();
    const route = request.routeOptions.url ?? 'unmatched';
    const remote = remoteSpanContext(request.headers);
    const { span, context: active } = startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      parent: ROOT_CONTEXT,
      links: remote ? [{ context: remote }] : [],
      attributes: { 'http.request.method': request.method, 'http.route': route, 'url.path': request.url.split('?')[0] ?? '/' },
    });
    spans.set(request, span);
    // The body arrives in stream events, outside this call: bind the streams to the context too.
    context.bind(active, request.raw);
    context.bind(active, reply.raw);
    context.with(active, done);
  });

  const end = (request: FastifyRequest, statusCode: number | undefined) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    if (statusCode !== undefined) span.setAttribute('http.response.status_code', statusCode);
    if (statusCode === undefined || statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}
