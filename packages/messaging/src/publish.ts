import { DomainEvent, eventSubject } from '@holdfast/contracts';
import { SpanKind, withSpan } from '@holdfast/logging';
import type { TSchema } from '@sinclair/typebox';
import { type Bus, prefixed } from './bus.js';
import { traceHeaders } from './trace-headers.js';
import { assertPayload } from './validate.js';

/**
 * Publishes in a producer span; the message's headers carry that span's trace context, so the
 * consumer's span continues the trace (docs/operations.md, "Tracing").
 */
async function publishTraced(bus: Bus, subject: string, data: string, msgId: string): Promise<{ duplicate: boolean; seq: number }> {
  const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.message.id': msgId };
  return withSpan(`${subject} publish`, { kind: SpanKind.PRODUCER, attributes }, async () => {
    const headers = traceHeaders();
    const ack = await bus.js.publish(prefixed(bus, subject), data, { msgID: msgId, ...(headers ? { headers } : {}) });
    return { duplicate: ack.duplicate, seq: ack.seq };
  });
}

/**
 * Publishes a domain event to JetStream and resolves on the stream's ack. The event id is the
 * Nats-Msg-Id, so a re-publish within the duplicate window is dropped by the server.
 */
export async function publishEvent(bus: Bus, event: DomainEvent): Promise<{ duplicate: boolean; seq: number }> {
  assertPayload(DomainEvent, event, `event ${event.type}`);
  return publishTraced(bus, eventSubject(event.type), JSON.stringify(event), event.id);
}

/** Publishes any contract-checked payload to a JetStream subject with an explicit de-duplication id. */
export async function publishChecked<S extends TSchema>(
  bus: Bus,
  subject: string,
  schema: S,
  payload: unknown,
  msgId: string,
): Promise<{ duplicate: boolean; seq: number }> {
  assertPayload(schema, payload, subject);
  return publishTraced(bus, subject, JSON.stringify(payload), msgId);
}
