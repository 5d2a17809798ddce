import { DomainEvent, eventSubject } from '@holdfast/contracts';
import type { TSchema } from '@sinclair/typebox';
import { type Bus, prefixed } from './bus.js';
import { assertPayload } from './validate.js';

/**
 * Publishes a domain event to JetStream and resolves on the stream's ack. The event id is the
 * Nats-Msg-Id, so a re-publish within the duplicate window is dropped by the server.
 */
export async function publishEvent(bus: Bus, event: DomainEvent): Promise<{ duplicate: boolean; seq: number }> {
  assertPayload(DomainEvent, event, `event ${event.type}`);
  const ack = await bus.js.publish(prefixed(bus, eventSubject(event.type)), JSON.stringify(event), { msgID: event.id });
  return { duplicate: ack.duplicate, seq: ack.seq };
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
  const ack = await bus.js.publish(prefixed(bus, subject), JSON.stringify(payload), { msgID: msgId });
  return { duplicate: ack.duplicate, seq: ack.seq };
}
