import { CONSUMERS, DomainEvent } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { type Bus, type RunningConsumer, startConsumer } from '@holdfast/messaging';
import type { IntakeRepository } from './repository.js';

/**
 * Takes every domain event from the EVENTS stream into the dispatcher's own schema with its
 * deliveries (one transaction), then acks: a crash before the commit redelivers the message, a
 * crash after it finds the event stored and creates nothing twice.
 */
export function startEventIntake(deps: { bus: Bus; repository: IntakeRepository; logger: Logger }): Promise<RunningConsumer> {
  return startConsumer({
    bus: deps.bus,
    stream: 'EVENTS',
    durable: CONSUMERS.dispatcherEvents,
    filterSubject: 'events.>',
    schema: DomainEvent,
    logger: deps.logger,
    concurrency: 8,
    handler: async (event) => {
      const { isNew, deliveries } = await deps.repository.record(event);
      deps.logger.debug({ eventId: event.id, type: event.type, isNew, deliveries }, 'event received');
    },
  });
}
