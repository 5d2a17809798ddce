import { CONSUMERS } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { type Bus, type RunningConsumer, startDomainEventConsumer } from '@holdfast/messaging';
import type { NotificationsService } from './service.js';

/**
 * The durable consumer that turns the EVENTS stream into notifications. Instances share it; a
 * message is acked once its notifications are stored, so a crash redelivers it, and the
 * (event, user) uniqueness makes the redelivery create nothing twice. The NATS setup creates it
 * with deliver policy `new` (DURABLE_CONSUMERS): a deployment notifies from its first setup on.
 * One message at a time, so notifications are created in the stream's order.
 */
export function startNotificationConsumer(deps: {
  bus: Bus;
  notifications: NotificationsService;
  logger: Logger;
}): Promise<RunningConsumer> {
  return startDomainEventConsumer({
    bus: deps.bus,
    durable: CONSUMERS.workspaceNotifications,
    logger: deps.logger,
    concurrency: 1,
    handler: async (event) => {
      await deps.notifications.handleEvent(event);
    },
  });
}
