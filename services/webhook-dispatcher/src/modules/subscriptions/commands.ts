import { WebhookCommands } from '@holdfast/contracts';
import { type Bus, serveCommand } from '@holdfast/messaging';
import type { SubscriptionsService } from './service.js';

/** The subscription commands both APIs forward to: each calls one service function. */
export function serveSubscriptionCommands(
  bus: Bus,
  service: string,
  subscriptions: SubscriptionsService,
): ReturnType<typeof serveCommand>[] {
  return [
    serveCommand(bus, WebhookCommands.list, service, ({ owner, ...filter }) => subscriptions.list(owner, filter)),
    serveCommand(bus, WebhookCommands.create, service, ({ owner, ...input }) => subscriptions.create(owner, input)),
    serveCommand(bus, WebhookCommands.eventTypes, service, async () => subscriptions.eventTypes()),
    serveCommand(bus, WebhookCommands.get, service, ({ owner, subscriptionId }) => subscriptions.get(owner, subscriptionId)),
    serveCommand(bus, WebhookCommands.update, service, ({ owner, subscriptionId, ...changes }) =>
      subscriptions.update(owner, subscriptionId, changes),
    ),
    serveCommand(bus, WebhookCommands.delete, service, ({ owner, subscriptionId }) => subscriptions.remove(owner, subscriptionId)),
    serveCommand(bus, WebhookCommands.rotateSecret, service, ({ owner, subscriptionId }) =>
      subscriptions.rotateSecret(owner, subscriptionId),
    ),
    serveCommand(bus, WebhookCommands.completeRotation, service, ({ owner, subscriptionId }) =>
      subscriptions.completeRotation(owner, subscriptionId),
    ),
    serveCommand(bus, WebhookCommands.resetCircuitBreaker, service, ({ owner, subscriptionId }) =>
      subscriptions.resetCircuitBreaker(owner, subscriptionId),
    ),
    serveCommand(bus, WebhookCommands.deactivateOwner, service, ({ owner, reason }) => subscriptions.deactivateOwner(owner, reason)),
  ];
}
