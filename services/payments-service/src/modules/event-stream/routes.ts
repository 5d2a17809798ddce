import {
  EVENT_STREAM_HEARTBEAT_MS,
  EVENT_STREAM_PATH,
  EVENT_STREAM_RETRY_MS,
  EventStreamHeaders,
  EventStreamQuery,
  EventStreamResponse,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { principalOf } from '../auth/index.js';
import type { EventStreamService } from './service.js';

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

    app.get(
      EVENT_STREAM_PATH,
      {
        config: { access: { anyScope: ['read:transactions', 'read:disputes'] }, tier: 'standard' },
        schema: {
          tags: ['events'],
          summary: 'Stream the platform’s events (server-sent events)',
          description: [
            'An extension beyond the spec’s list of v2 operations. Answers `200 text/event-stream` and keeps the connection open,',
            'sending each event of the calling token’s platform as it happens (never another platform’s), as',
            '`id: <stream position>`, `event: <type>`, `data: <the webhook delivery body {id, type, createdAt, data}>`.',
            'Transaction events need `read:transactions`, dispute and evidence events `read:disputes`; a token sees only the types it may read.',
            `An idle stream gets a \`: heartbeat\` comment every ${options.heartbeatMs / 1000} s (\`EVENT_STREAM_HEARTBEAT_INTERVAL\`, 15 s by default). Reconnect with \`Last-Event-ID\` set to the last \`id:\``,
            'received to get every event after it (events stay replayable as long as the event stream keeps them, 30 days by default);',
            'without it the stream starts with the events from now on. The whole connection counts as one request of the standard tier.',
          ].join(' '),
          operationId: 'streamEvents',
          querystring: EventStreamQuery,
          headers: EventStreamHeaders,
          response: {
            200: { description: 'The event stream.', content: { 'text/event-stream': { schema: EventStreamResponse } } },
            ...errorResponses(503),
          },
        },
      },
      async (request, reply) => {
        const controller = trackedAbort(open);
        const lastEventId = request.headers['last-event-id'];
        let events: AsyncIterable<{ seq: number; event: { type: string } }>;
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
          for await (const { seq, event } of events) {
            raw.write(`id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
          }
        } catch (error) {
          request.log.warn({ err: error }, 'event stream ended by an error');
        } finally {
          clearInterval(heartbeat);
          controller.abort();
          raw.end();
        }
      },
    );
  };
}

/** An AbortController kept in the set of open streams until it aborts. */
function trackedAbort(registry: Set<AbortController>): AbortController {
  const controller = new AbortController();
  registry.add(controller);
  controller.signal.addEventListener('abort', () => registry.delete(controller), { once: true });
  return controller;
}
