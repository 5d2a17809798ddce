import {
  type CommandDefinition,
  type CommandReply,
  type CommandRequest,
  ownerKindOf,
  type WebhookOwner,
  webhookCommandOf,
} from '@holdfast/contracts';
import { type Bus, sendCommand } from '@holdfast/messaging';

/**
 * Sends a webhook command as its owner's API would: on the subject of the owner's kind
 * (`cmd.webhooks.platform.…` for a `platformId`, `cmd.webhooks.workspace.…` for a `workspaceId`;
 * platform for a command without an owner).
 */
export function sendWebhookCommand<C extends CommandDefinition>(
  bus: Bus,
  command: C,
  request: CommandRequest<C>,
  options: Parameters<typeof sendCommand>[3] = {},
): Promise<CommandReply<C>> {
  const owner = (request as { owner?: WebhookOwner }).owner;
  return sendCommand(bus, webhookCommandOf(command, owner ? ownerKindOf(owner) : 'platform'), request, options);
}

/** The subject a webhook command travels on for this request (for raw NATS requests in tests). */
export function webhookSubjectOf(command: CommandDefinition, request: unknown): string {
  const owner = (request as { owner?: WebhookOwner } | null)?.owner;
  const kind = owner && typeof owner === 'object' && 'workspaceId' in owner ? 'workspace' : 'platform';
  return webhookCommandOf(command, kind).subject;
}
