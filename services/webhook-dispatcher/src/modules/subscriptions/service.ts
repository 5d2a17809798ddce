import {
  AppError,
  EVENT_TYPE_DESCRIPTIONS,
  EVENT_TYPES,
  type EventType,
  type FieldError,
  notFound,
  uuidv7,
  validationError,
  WEBHOOK_LIMITS,
  type WebhookEventTypeList,
  type WebhookOwner,
  type WebhookSubscription,
  type WebhookSubscriptionWithSecret,
} from '@holdfast/contracts';
import { randomToken, type SecretBox } from '@holdfast/secrets';
import type { TargetPolicy } from '../target-safety/index.js';
import type { SubscriptionChanges, SubscriptionRow, SubscriptionsRepository } from './repository.js';
import { nextCircuit } from './state-machine.js';

/** The AES-GCM associated data of a subscription's secrets: a sealed value opens only on its own row. */
export function secretContext(subscriptionId: string): string {
  return `webhooks.subscription:${subscriptionId}`;
}

export function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    platformId: row.platformId,
    workspaceId: row.workspaceId,
    url: row.url,
    eventTypes: row.eventTypes as EventType[],
    isActive: row.isActive,
    ipWhitelist: row.ipWhitelist,
    metadata: row.metadata,
    circuitBreaker: {
      state: row.circuitState,
      consecutiveFailures: row.consecutiveFailures,
      openedAt: row.circuitState === 'CLOSED' ? null : row.circuitOpenedAt,
      halfOpenAt: row.circuitState === 'OPEN' ? row.circuitHalfOpenAt : null,
    },
    secretRotation: { inProgress: row.previousSecretSealed !== null, startedAt: row.rotationStartedAt },
    disabledReason: row.disabledReason,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const KNOWN_EVENT_TYPES = new Set<string>(EVENT_TYPES);

/** 400 INVALID_EVENT_TYPES naming each unknown type, or the list without duplicates. */
function checkedEventTypes(eventTypes: readonly string[], field = 'eventTypes'): string[] {
  const unknown = eventTypes.map((type, i) => ({ type, i })).filter(({ type }) => !KNOWN_EVENT_TYPES.has(type));
  if (unknown.length > 0) {
    throw new AppError('INVALID_EVENT_TYPES', `Unknown event types: ${unknown.map((u) => u.type).join(', ')}`, {
      errors: unknown.map(({ type, i }) => ({
        field: field === 'eventTypes' ? `eventTypes.${i}` : field,
        reason: `${type} is not an event type`,
      })),
      invalidEventTypes: unknown.map((u) => u.type),
      validEventTypes: [...EVENT_TYPES],
    });
  }
  return [...new Set(eventTypes)];
}

function metadataProblem(metadata: Record<string, unknown> | undefined): FieldError[] {
  if (metadata === undefined) return [];
  const size = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  return size > WEBHOOK_LIMITS.metadataMaxBytes
    ? [{ field: 'metadata', reason: `must be at most ${WEBHOOK_LIMITS.metadataMaxBytes} bytes as JSON (got ${size})` }]
    : [];
}

function throwIfProblems(problems: FieldError[]): void {
  if (problems.length === 0) return;
  throw validationError(problems);
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks form). */
export const webhookSecret = (): string => randomToken('whsec_', 32, 'base64');

export function createSubscriptionsService(deps: { repository: SubscriptionsRepository; policy: TargetPolicy; secrets: SecretBox }) {
  const { repository, policy, secrets } = deps;

  async function validateTarget(url: string | undefined, ipWhitelist: readonly string[] | undefined, metadata?: Record<string, unknown>) {
    throwIfProblems([
      ...(url === undefined ? [] : await policy.checkUrl(url)),
      ...(ipWhitelist === undefined ? [] : policy.checkWhitelist(ipWhitelist)),
      ...metadataProblem(metadata),
    ]);
  }

  return {
    /** The subscription row of this owner, or 404 (another owner's id is "not found" too). */
    requireOwned: async (owner: WebhookOwner, id: string): Promise<SubscriptionRow> => {
      const row = await repository.get(owner, id);
      if (!row) throw notFound('Webhook subscription');
      return row;
    },

    eventTypes: (): WebhookEventTypeList => EVENT_TYPES.map((type) => ({ type, description: EVENT_TYPE_DESCRIPTIONS[type] })),

    list: async (owner: WebhookOwner, filter: { isActive?: boolean; eventType?: string }): Promise<WebhookSubscription[]> => {
      if (filter.eventType !== undefined) checkedEventTypes([filter.eventType], 'eventType');
      return (await repository.list(owner, filter)).map(toSubscription);
    },

    create: async (
      owner: WebhookOwner,
      input: { url: string; eventTypes: string[]; ipWhitelist?: string[]; metadata?: Record<string, unknown> },
    ): Promise<WebhookSubscriptionWithSecret> => {
      const eventTypes = checkedEventTypes(input.eventTypes);
      const ipWhitelist = (input.ipWhitelist ?? []).map((e) => e.trim());
      await validateTarget(input.url, ipWhitelist, input.metadata);
      const id = uuidv7();
      const secret = webhookSecret();
      const row = await repository.insertWithinLimit(
        {
          id,
          owner,
          url: input.url,
          eventTypes,
          ipWhitelist,
          metadata: input.metadata ?? {},
          secretSealed: secrets.seal(secret, secretContext(id)),
        },
        WEBHOOK_LIMITS.subscriptionsPerOwner,
      );
      if (!row) {
        throw new AppError(
          'CONFLICT',
          `At most ${WEBHOOK_LIMITS.subscriptionsPerOwner} webhook subscriptions per owner; delete one first`,
          {
            limit: WEBHOOK_LIMITS.subscriptionsPerOwner,
          },
        );
      }
      return { ...toSubscription(row), secret };
    },

    get: async (owner: WebhookOwner, id: string): Promise<WebhookSubscription> => {
      const row = await repository.get(owner, id);
      if (!row) throw notFound('Webhook subscription');
      return toSubscription(row);
    },

    update: async (owner: WebhookOwner, id: string, input: SubscriptionChanges): Promise<WebhookSubscription> => {
      // Ownership first: another owner's id answers 404 even when the body is also wrong.
      if (!(await repository.get(owner, id))) throw notFound('Webhook subscription');
      const changes: SubscriptionChanges = { ...input };
      if (input.eventTypes !== undefined) changes.eventTypes = checkedEventTypes(input.eventTypes);
      if (input.ipWhitelist !== undefined) changes.ipWhitelist = input.ipWhitelist.map((e) => e.trim());
      await validateTarget(changes.url, changes.ipWhitelist, changes.metadata);
      const row = await repository.update(owner, id, changes);
      if (!row) throw notFound('Webhook subscription');
      return toSubscription(row);
    },

    remove: async (owner: WebhookOwner, id: string) => {
      if (!(await repository.delete(owner, id))) throw notFound('Webhook subscription');
      return { id, deleted: true as const, message: 'Webhook subscription deleted' };
    },

    rotateSecret: async (owner: WebhookOwner, id: string): Promise<WebhookSubscriptionWithSecret> => {
      const secret = webhookSecret();
      const row = await repository.rotate(owner, id, secrets.seal(secret, secretContext(id)));
      if (!row) throw notFound('Webhook subscription');
      return { ...toSubscription(row), secret };
    },

    completeRotation: async (owner: WebhookOwner, id: string): Promise<WebhookSubscription> => {
      const result = await repository.completeRotation(owner, id);
      if (result === undefined) throw notFound('Webhook subscription');
      if (result === 'noRotation') throw new AppError('NO_ROTATION_IN_PROGRESS', 'No secret rotation is in progress for this subscription');
      return toSubscription(result);
    },

    resetCircuitBreaker: async (owner: WebhookOwner, id: string): Promise<WebhookSubscription> => {
      const row = await repository.resetCircuit(owner, id, nextCircuit({ state: 'OPEN', consecutiveFailures: 0 }, 'reset', 1));
      if (!row) throw notFound('Webhook subscription');
      return toSubscription(row);
    },

    deactivateOwner: async (owner: WebhookOwner, reason: string | undefined) => ({
      deactivated: await repository.deactivateOwner(owner, reason ?? null),
    }),
  };
}
