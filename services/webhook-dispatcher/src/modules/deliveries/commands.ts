import { WebhookCommands } from '@holdfast/contracts';
import type { Bus, serveCommand } from '@holdfast/messaging';
import { serveOwnedCommand } from '../subscriptions/index.js';
import type { DeliveryService } from './service.js';

/** The delivery commands: each parses nothing more than its contract and calls one service function. */
export function serveDeliveryCommands(bus: Bus, service: string, deliveries: DeliveryService): ReturnType<typeof serveCommand>[] {
  return [
    ...serveOwnedCommand(bus, WebhookCommands.deliveryLogs, service, ({ owner, subscriptionId, ...query }) =>
      deliveries.logs(owner, subscriptionId, query),
    ),
    ...serveOwnedCommand(bus, WebhookCommands.test, service, ({ owner, subscriptionId }) => deliveries.test(owner, subscriptionId)),
    ...serveOwnedCommand(bus, WebhookCommands.resendDelivery, service, ({ owner, subscriptionId, deliveryId }) =>
      deliveries.resend(owner, subscriptionId, deliveryId),
    ),
    ...serveOwnedCommand(bus, WebhookCommands.replay, service, ({ owner, subscriptionId, ...range }) =>
      deliveries.replay(owner, subscriptionId, range),
    ),
  ];
}
