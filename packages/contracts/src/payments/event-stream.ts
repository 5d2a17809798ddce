import { Type } from '@sinclair/typebox';
import { EVENT_TYPES, type EventPayload, type EventType } from '../events/domain-events.js';
import type { Scope } from './access.js';

/**
 * The Payments API's live event stream, an extension beyond the spec's list of operations: the
 * calling platform's own events as server-sent events, resumable with `Last-Event-ID`. Each event's
 * `data:` is exactly the body a webhook delivery of it carries, so a forwarder (`holdfast listen`)
 * can re-sign and post it unchanged. docs/api/events-stream.md.
 */
export const EVENT_STREAM_PATH = '/api/v2/events/stream';

/** A comment line (`: heartbeat`) is written this often so proxies and clients see a live stream. */
export const EVENT_STREAM_HEARTBEAT_MS = 15_000;

/** The SSE `retry:` advice sent at the start of every stream (milliseconds before reconnecting). */
export const EVENT_STREAM_RETRY_MS = 3_000;

/** Which scope lets a token see an event type on the stream (and only those types it may read). */
export const EVENT_STREAM_SCOPES: Record<EventType, Scope> = {
  'transaction.created': 'read:transactions',
  'transaction.escrowed': 'read:transactions',
  'transaction.completed': 'read:transactions',
  'transaction.failed': 'read:transactions',
  'transaction.refunded': 'read:transactions',
  'transaction.rescinded': 'read:transactions',
  'transaction.finality_updated': 'read:transactions',
  'transaction.reorged': 'read:transactions',
  'dispute.created': 'read:disputes',
  'dispute.resolved': 'read:disputes',
  'dispute.escalated': 'read:disputes',
  'evidence.submitted': 'read:disputes',
  'checkout.session.completed': 'read:transactions',
  'checkout.session.expired': 'read:transactions',
};

export const EventStreamQuery = Type.Object(
  {
    types: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: `Comma-separated event types to receive (${EVENT_TYPES.join(', ')}); all the token may read when absent. Unknown types answer 400 \`INVALID_EVENT_TYPES\`.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,19}$',
      description: 'The `id:` of the last event received: the stream resumes right after it (nothing in between is missed).',
    }),
  ),
});

/** The 200 answer: `text/event-stream`, one `id:` / `event:` / `data:` block per event. */
export const EventStreamResponse = Type.String({
  description:
    'Server-sent events. Each event: `id: <stream position>`, `event: <type>`, `data: {id, type, createdAt, data}` (the webhook delivery body). `: heartbeat` comments keep it alive.',
  examples: [
    'retry: 3000\n\nid: 42\nevent: transaction.created\ndata: {"id":"evt_01JD2Z8Q4ZK7M2V9X3A1B2C3D4","type":"transaction.created","createdAt":"2026-11-21T10:00:00.000Z","data":{"transaction":{"id":"2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11","status":"pending"}}}\n\n',
  ],
});

/**
 * An event as a webhook delivery carries it and as the stream sends it: `{id, type, createdAt,
 * data}`, where `type` narrows `data`.
 */
export type DeliveredEvent = {
  [T in EventType]: { id: string; type: T; createdAt: string; data: EventPayload<T> };
}[EventType];
