import { CONSUMERS, type DomainEvent } from '@holdfast/contracts';
import { activeTraceCarrier, type Logger } from '@holdfast/logging';
import { type Bus, type RunningConsumer, startDomainEventConsumer } from '@holdfast/messaging';
import { createBatcher } from '@holdfast/runtime';
import type { IntakeItem, IntakeRepository } from './repository.js';

/** Events handled at once; they are written together (see createIntakeBatcher). */
const INTAKE_CONCURRENCY = 200;
const BATCH_MAX = 200;

/**
 * Group commit for the intake (the runtime's batcher, gathering while a write is in progress):
 * events handed in while a write is in progress are written together by the next one, so a burst costs one commit per batch instead of one per event. Each caller's
 * promise settles when its event is committed (or failed). A failed batch is retried one event at
 * a time, so that one bad event cannot hold the others back.
 */
export function createIntakeBatcher(repository: IntakeRepository, logger: Logger, onDeliveries: () => void = () => {}) {
  const add = createBatcher<IntakeItem & { resolve: () => void; reject: (error: unknown) => void }>({
    maxBatch: BATCH_MAX,
    gather: 'while-busy',
    run: async (batch) => {
      try {
        const result = await repository.recordMany(batch.map(({ event, traceContext }) => ({ event, traceContext })));
        logger.debug({ events: batch.length, ...result }, 'events stored');
        if (result.deliveries > 0) onDeliveries();
        for (const item of batch) item.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          return;
        }
        for (const item of batch) {
          await repository.recordMany([{ event: item.event, traceContext: item.traceContext }]).then(item.resolve, item.reject);
        }
      }
    },
  });

  return (event: DomainEvent): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      // The batch is written in whichever caller's context started it: keep each event's own.
      add({ event, traceContext: activeTraceCarrier(), resolve, reject });
    });
}

/**
 * Takes every domain event from the EVENTS stream into the dispatcher's own schema with its
 * deliveries (one commit), then acks: a crash before the commit redelivers the message, a crash
 * after it finds the event stored and creates nothing twice.
 */
export function startEventIntake(deps: {
  bus: Bus;
  repository: IntakeRepository;
  logger: Logger;
  /** Called after a commit that created deliveries: wakes this process's delivery worker without waiting for the NOTIFY. */
  onDeliveries?: () => void;
}): Promise<RunningConsumer> {
  const store = createIntakeBatcher(deps.repository, deps.logger.child({ component: 'intake' }), deps.onDeliveries);
  return startDomainEventConsumer({
    bus: deps.bus,
    durable: CONSUMERS.dispatcherEvents,
    logger: deps.logger,
    concurrency: INTAKE_CONCURRENCY,
    handler: store,
  });
}
