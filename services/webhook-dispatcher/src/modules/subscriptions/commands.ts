import { WebhookCommands } from '@holdfast/contracts';
import type { Bus, serveCommand } from '@holdfast/messaging';
import { serveOwnedCommand } from './owned-commands.js';
import type { SubscriptionsService } from './service.js';

/** The subscription commands both APIs forward to (on the subject of the owner's kind): each calls one service function. */
export function serveSubscriptionCommands(
  bus: Bus,
  service: string,
  subscriptions: SubscriptionsService,
): ReturnType<typeof serveCommand>[] {
  return [
    ...serveOwnedCommand(bus, WebhookCommands.list, service, ({ owner, ...filter }) => subscriptions.list(owner, filter)),
    ...serveOwnedCommand(bus, WebhookCommands.create, service, ({ owner, ...input }) => subscriptions.create(owner, input)),
    ...serveOwnedCommand(bus, WebhookCommands.eventTypes, service, async () => subscriptions.eventTypes()),
    ...serveOwnedCommand(bus, WebhookCommands.get, service, ({ owner, subscriptionId }) => subscriptions.get(owner, subscriptionId)),
    ...serveOwnedCommand(bus, WebhookCommands.update, service, ({ owner, subscriptionId, ...changes }) =>
      subscriptions.update(owner, subscriptionId, changes),
    ),
    ...serveOwnedCommand(bus, WebhookCommands.delete, service, ({ owner, subscriptionId }) => subscriptions.remove(owner, subscriptionId)),
    ...serveOwnedCommand(bus, WebhookCommands.rotateSecret, service, ({ owner, subscriptionId }) =>
      subscriptions.rotateSecret(owner, subscriptionId),
    ),
    ...serveOwnedCommand(bus, WebhookCommands.completeRotation, service, ({ owner, subscriptionId }) =>
      subscriptions.completeRotation(owner, subscriptionId),
    ),
    ...serveOwnedCommand(bus, WebhookCommands.resetCircuitBreaker, service, ({ owner, subscriptionId }) =>
      subscriptions.resetCircuitBreaker(owner, subscriptionId),
    ),
    ...serveOwnedCommand(bus, WebhookCommands.deactivateOwner, service, ({ owner, reason }) =>
      subscriptions.deactivateOwner(owner, reason),
    ),
  ];
}
