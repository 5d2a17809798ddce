import {
  AppError,
  DEFAULT_EVENT_TYPES,
  type DeliveredEvent,
  type DomainEvent,
  EVENT_STREAM_SCOPES,
  EVENT_TYPES,
  type EventType,
  PAYMENTS_EVENTS,
  STREAMS,
} from '@holdfast/contracts';
import { type Bus, type FollowedMessage, followStream } from '@holdfast/messaging';
import { hasScope, type Principal } from '../auth/index.js';

export interface StreamedEvent {
  /** The stream position: the SSE `id:`, given back as `Last-Event-ID` to resume after it. */
  seq: number;
  event: DeliveredEvent;
  /** The event's publish span (the outbox relay's): its send to the client continues that trace. */
  trace: FollowedMessage['trace'];
}

export interface OpenStreamInput {
  afterSeq?: number;
  /** Comma-separated event types, as the query gives them. */
  types?: string;
  signal: AbortSignal;
}

const KNOWN = new Set<string>(EVENT_TYPES);

/** 400 INVALID_EVENT_TYPES naming each unknown type (as the webhook subscriptions do). */
function requestedTypes(types: string | undefined): Set<EventType> {
  if (types === undefined || types.trim() === '') return new Set(DEFAULT_EVENT_TYPES);
  const given = types
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = given.filter((t) => !KNOWN.has(t));
  if (unknown.length > 0) {
    throw new AppError('INVALID_EVENT_TYPES', `Unknown event types: ${unknown.join(', ')}`, {
      errors: unknown.map((type) => ({ field: 'types', reason: `${type} is not an event type` })),
      invalidEventTypes: unknown,
      validEventTypes: [...EVENT_TYPES],
    });
  }
  return new Set(given as EventType[]);
}

function isDomainEvent(value: unknown): value is DomainEvent {
  const v = value as Partial<DomainEvent> | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.type === 'string' && KNOWN.has(v.type);
}

/**
 * The calling platform's events, live, read from the EVENTS stream (what the outbox relay
 * published): only events whose `platformId` is the principal's, and only types its scopes may read.
 */
export function createEventStreamService(deps: { bus: Bus }) {
  return {
    async open(principal: Principal, input: OpenStreamInput): Promise<AsyncIterable<StreamedEvent>> {
      const wanted = requestedTypes(input.types);
      const readable = [...wanted].filter((type) => hasScope(principal, EVENT_STREAM_SCOPES[type]));
      if (readable.length === 0) {
        throw new AppError('INSUFFICIENT_SCOPE', 'None of the requested event types is readable with this token', {
          required: [...new Set([...wanted].map((type) => EVENT_STREAM_SCOPES[type]))],
        });
      }
      const allowed = new Set<string>(readable);
      const messages = await followStream(deps.bus, {
        stream: STREAMS.EVENTS.name,
        // Payments' own events only: nothing another NATS user put on EVENTS reaches a platform.
        filterSubject: PAYMENTS_EVENTS,
        ...(input.afterSeq !== undefined ? { afterSeq: input.afterSeq } : {}),
        signal: input.signal,
      });
      return (async function* platformEvents() {
        for await (const message of messages) {
          const event = message.payload;
          if (!isDomainEvent(event) || event.platformId !== principal.platformId || !allowed.has(event.type)) continue;
          const delivered = { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data } as DeliveredEvent;
          yield { seq: message.seq, event: delivered, trace: message.trace };
        }
      })();
    },
  };
}

export type EventStreamService = ReturnType<typeof createEventStreamService>;
