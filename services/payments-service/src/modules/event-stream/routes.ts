import { paymentsEndpoints as api, EVENT_STREAM_HEARTBEAT_MS, EVENT_STREAM_RETRY_MS, eventSubject } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { SpanKind, withSpan } from '@holdfast/logging';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { EventStreamService, StreamedEvent } from './service.js';

/**
 * GET /api/v2/events/stream: the platform's events as server-sent events (docs/api/events-stream.md),
 * an extension beyond the spec's operations that `holdfast listen` is built on.
 */
export function eventStreamRoutes(
  service: EventStreamService,
  options: { heartbeatMs: number } = { heartbeatMs: EVENT_STREAM_HEARTBEAT_MS },
) {
  return async (app: HttpApp) => {
    const open = new Set<AbortController>();
    // A stream never ends by itself: end them all when the server closes, so shutdown does not wait.
    app.addHook('preClose', async () => {
      for (const controller of open) controller.abort();
    });

    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.streamEvents, async (request, reply) => {
        const controller = trackedAbort(open);
        const lastEventId = request.headers['last-event-id'];
        let events: AsyncIterable<StreamedEvent>;
        try {
          events = await service.open(principalOf(request), {
            ...(typeof lastEventId === 'string' ? { afterSeq: Number(lastEventId) } : {}),
            ...(request.query.types !== undefined ? { types: request.query.types } : {}),
            signal: controller.signal,
          });
        } catch (error) {
          controller.abort();
          throw error;
        }
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-accel-buffering': 'no',
        });
        raw.write(`retry: ${EVENT_STREAM_RETRY_MS}\n: connected\n\n`);
        const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), options.heartbeatMs);
        request.raw.on('close', () => controller.abort());
        raw.on('close', () => controller.abort());
        try {
          for await (const { seq, event, trace } of events) {
            // One span per event sent, in the trace of the change that caused it (as a webhook attempt is).
            await withSpan(
              `${eventSubject(event.type)} stream`,
              {
                kind: SpanKind.CONSUMER,
                parent: trace,
                attributes: { 'messaging.system': 'nats', 'holdfast.event.id': event.id, 'holdfast.stream.seq': seq },
              },
              async () => {
                raw.write(`id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
              },
            );
          }
        } catch (error) {
          request.log.warn({ err: error }, 'event stream ended by an error');
        } finally {
          clearInterval(heartbeat);
          controller.abort();
          raw.end();
        }
      }),
    ]);
  };
}

/** An AbortController kept in the set of open streams until it aborts. */
function trackedAbort(registry: Set<AbortController>): AbortController {
  const controller = new AbortController();
  registry.add(controller);
  controller.signal.addEventListener('abort', () => registry.delete(controller), { once: true });
  return controller;
}
