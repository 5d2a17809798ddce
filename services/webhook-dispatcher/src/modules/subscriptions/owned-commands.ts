import {
  AppError,
  type CommandDefinition,
  type CommandRequest,
  ownerKindOf,
  WEBHOOK_OWNER_KINDS,
  type WebhookOwner,
  webhookCommandOf,
} from '@holdfast/contracts';
import { type Bus, type CommandHandler, serveCommand } from '@holdfast/messaging';

/**
 * Serves a webhook command on the subject of each owner kind (`cmd.webhooks.platform.…` and
 * `cmd.webhooks.workspace.…`), refusing a request whose owner is not of its subject's kind: the
 * NATS grants let payments send only the platform subjects and workspace-service only the
 * workspace ones, so this check is what keeps one from naming the other's owners.
 */
export function serveOwnedCommand<C extends CommandDefinition>(
  bus: Bus,
  command: C,
  service: string,
  handler: CommandHandler<C>,
): ReturnType<typeof serveCommand>[] {
  return WEBHOOK_OWNER_KINDS.map((kind) =>
    serveCommand(bus, webhookCommandOf(command, kind), service, (request, context) => {
      const owner = (request as CommandRequest<C> & { owner?: WebhookOwner }).owner;
      if (owner && ownerKindOf(owner) !== kind) {
        throw new AppError('FORBIDDEN', `A ${kind} webhook command cannot name a ${ownerKindOf(owner)}'s subscriptions`, {
          reason: 'owner_kind_mismatch',
        });
      }
      return handler(request, context);
    }),
  );
}
