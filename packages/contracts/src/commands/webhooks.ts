import { type Static, type TProperties, Type } from '@sinclair/typebox';
import { DateTime, Metadata, StringEnum, Uuid } from '../common/domain.js';
import { Nullable } from '../common/fragments.js';
import { EVENT_TYPE_DESCRIPTIONS, EVENT_TYPES, EventId, EventTypeInfo, EventTypeSchema } from '../events/domain-events.js';
import { type CommandDefinition, defineCommand } from './define.js';

/*
 * Webhook subscriptions, delivery logs and the commands both APIs use to manage them. The
 * webhook-dispatcher owns all of it (schema `webhooks`); the Payments API (v1, owner `platformId`)
 * and the Workspace API (owner `workspaceId`) forward each of their operations as one command and
 * answer with its reply unchanged. See docs/webhooks.md for the receiver's side.
 */

/** Limits a subscription's fields and the commands obey (also in docs/webhooks.md). */
export const WEBHOOK_LIMITS = {
  urlMaxLength: 2048,
  ipWhitelistMaxEntries: 50,
  /** `JSON.stringify(metadata)` at most this many bytes. */
  metadataMaxBytes: 8192,
  subscriptionsPerOwner: 100,
  deliveryLogsDefaultLimit: 20,
  deliveryLogsMaxLimit: 100,
  /** A delivery log keeps at most this many bytes of the receiver's answer. */
  responseBodyMaxBytes: 4096,
  /** Delivery logs, deliveries and received events are purged after this many days. */
  retentionDays: 30,
  /** Events a single replay command queues at most; the reply says where to resume. */
  replayMaxEvents: 5_000,
} as const;

/** The event type of a test delivery (`POST .../test`); not subscribable, never sent otherwise. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

/**
 * A test delivery waits for the receiver (at most 30 s); callers of `WebhookCommands.test` must
 * wait longer than the default command time-out: pass this as `sendCommand`'s `timeoutMs`.
 */
export const WEBHOOK_TEST_COMMAND_TIMEOUT_MS = 35_000;

/**
 * Who a subscription belongs to. The Payments API (v1) passes the platform of the API key, the
 * Workspace API the workspace of the path. An owner never sees another owner's subscriptions: a
 * foreign id answers 404. A platform's subscriptions receive the events whose `platformId` is that
 * platform; a workspace's receive the events whose `workspaceId` is that workspace (the events of
 * all of the workspace's platforms).
 */
export const WebhookOwner = Type.Union(
  [Type.Object({ platformId: Uuid }, { additionalProperties: false }), Type.Object({ workspaceId: Uuid }, { additionalProperties: false })],
  { description: 'Exactly one of `platformId` (Payments API v1) or `workspaceId` (Workspace API).' },
);
export type WebhookOwner = Static<typeof WebhookOwner>;

/** Whose a subscription is: a platform's (Payments API v1) or a workspace's (Workspace API). */
export type WebhookOwnerKind = 'platform' | 'workspace';
export const WEBHOOK_OWNER_KINDS: readonly WebhookOwnerKind[] = ['platform', 'workspace'];
export const ownerKindOf = (owner: WebhookOwner): WebhookOwnerKind => ('platformId' in owner ? 'platform' : 'workspace');

/**
 * A webhook command on the subject of its owner's kind (`cmd.webhooks.platform.…`,
 * `cmd.webhooks.workspace.…`): NATS grants payments the one and workspace-service the other, and
 * the dispatcher refuses a request whose owner is not of its subject's kind, so a workspace-service
 * credential cannot create, read or change a platform's subscriptions (or the reverse).
 */
export function webhookCommandOf<C extends CommandDefinition>(command: C, kind: WebhookOwnerKind): C {
  return { ...command, subject: command.subject.replace(/^cmd\.webhooks\./, `cmd.webhooks.${kind}.`) };
}

export const CIRCUIT_STATES = ['CLOSED', 'OPEN', 'HALF_OPEN'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

const WebhookUrl = Type.String({
  format: 'uri',
  minLength: 1,
  maxLength: WEBHOOK_LIMITS.urlMaxLength,
  description:
    'Where deliveries are POSTed. `https` in production (`http` also in local and staging); outside local, hosts that are or resolve to loopback, private, link-local or other non-public addresses are refused.',
});

const EventTypesField = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  description: 'Event types to receive, from the event-types list; unknown types answer 400 `INVALID_EVENT_TYPES`.',
});

const IpWhitelistField = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: WEBHOOK_LIMITS.ipWhitelistMaxEntries,
  description:
    'IPv4/IPv6 addresses or CIDR ranges the URL may resolve to. When not empty, a delivery is sent only to an address of the URL host that falls within the list (checked on every connection); empty allows any public address.',
});

const MetadataField = Type.Record(Type.String(), Type.Unknown(), {
  description: `Free-form key/value data, returned as sent (at most ${WEBHOOK_LIMITS.metadataMaxBytes} bytes as JSON). An update replaces it whole.`,
});

export const CircuitBreakerInfo = Type.Object({
  state: StringEnum(CIRCUIT_STATES, { description: 'CLOSED delivers; OPEN pauses deliveries (kept); HALF_OPEN sends one probe.' }),
  consecutiveFailures: Type.Integer({ minimum: 0 }),
  openedAt: Nullable(DateTime),
  /** When an OPEN circuit lets its next probe through. */
  halfOpenAt: Nullable(DateTime),
});

export const SecretRotationInfo = Type.Object({
  inProgress: Type.Boolean({ description: 'True between rotate-secret and complete-rotation: deliveries carry two signatures.' }),
  startedAt: Nullable(DateTime),
});

/** A subscription as every answer shows it; `secret` only in the answers of create and rotate-secret. */
export const WebhookSubscription = Type.Object(
  {
    id: Uuid,
    platformId: Nullable(Uuid),
    workspaceId: Nullable(Uuid),
    url: Type.String(),
    eventTypes: Type.Array(EventTypeSchema),
    isActive: Type.Boolean(),
    ipWhitelist: Type.Array(Type.String()),
    metadata: Metadata,
    circuitBreaker: CircuitBreakerInfo,
    secretRotation: SecretRotationInfo,
    /** Why the dispatcher deactivated the subscription (a receiver's 410), until it is reactivated. */
    disabledReason: Nullable(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a7c4-6f1e-7b2a-9c3d-4e5f6a7b8c9d',
        platformId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff',
        workspaceId: null,
        url: 'https://example.com/webhooks/holdfast',
        eventTypes: ['transaction.created', 'transaction.completed'],
        isActive: true,
        ipWhitelist: [],
        metadata: { team: 'payments' },
        circuitBreaker: { state: 'CLOSED', consecutiveFailures: 0, openedAt: null, halfOpenAt: null },
        secretRotation: { inProgress: false, startedAt: null },
        disabledReason: null,
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type WebhookSubscription = Static<typeof WebhookSubscription>;

/** The answer of create and rotate-secret: the subscription and its (new) secret, shown this once. */
export const WebhookSubscriptionWithSecret = Type.Object({
  ...WebhookSubscription.properties,
  secret: Type.String({
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    description: '`whsec_` + base64 of 32 random bytes. Shown only here; store it to verify signatures.',
  }),
});
export type WebhookSubscriptionWithSecret = Static<typeof WebhookSubscriptionWithSecret>;

/** One attempt to deliver one event to one subscription. */
export const WebhookDeliveryLog = Type.Object(
  {
    id: Uuid,
    webhookSubscriptionId: Uuid,
    /** The `X-Webhook-Delivery` (and `webhook-id`) of the attempt: the same for every attempt of one event to one subscription. */
    deliveryId: Uuid,
    eventType: Type.String(),
    eventId: EventId,
    deliveryAttempt: Type.Integer({ minimum: 1 }),
    success: Type.Boolean(),
    /** The receiver's status; null when no answer came (time-out, refused address, network error). */
    statusCode: Nullable(Type.Integer()),
    /** Milliseconds from sending to the answer (or to the failure). */
    responseTime: Type.Integer({ minimum: 0 }),
    errorMessage: Nullable(Type.String()),
    /** The headers sent, signatures shown as `[redacted]`. */
    requestHeaders: Type.Record(Type.String(), Type.String()),
    /** The receiver's body, cut to `WEBHOOK_LIMITS.responseBodyMaxBytes` bytes. */
    responseBody: Nullable(Type.String()),
    createdAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a7c4-7a00-7c1d-8e2f-3a4b5c6d7e8f',
        webhookSubscriptionId: '0193a7c4-6f1e-7b2a-9c3d-4e5f6a7b8c9d',
        deliveryId: '0193a7c4-7900-7abc-9def-0123456789ab',
        eventType: 'transaction.created',
        eventId: 'evt_0193a7c478ff7d3e9a1b2c3d4e5f6a7b',
        deliveryAttempt: 1,
        success: true,
        statusCode: 200,
        responseTime: 42,
        errorMessage: null,
        requestHeaders: { 'content-type': 'application/json', 'x-webhook-event': 'transaction.created' },
        responseBody: '{"received":true}',
        createdAt: '2026-11-21T10:00:01.000Z',
      },
    ],
  },
);
export type WebhookDeliveryLog = Static<typeof WebhookDeliveryLog>;

export const WebhookDeliveryLogList = Type.Object({
  logs: Type.Array(WebhookDeliveryLog),
  total: Type.Integer({ minimum: 0, description: 'Attempts matching the filters, over all pages.' }),
});
export type WebhookDeliveryLogList = Static<typeof WebhookDeliveryLogList>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The delivery of one event to one subscription, across all its attempts. */
export const WebhookDelivery = Type.Object({
  id: Uuid,
  webhookSubscriptionId: Uuid,
  eventId: EventId,
  eventType: EventTypeSchema,
  status: StringEnum(DELIVERY_STATUSES, {
    description:
      'pending: waiting for its next attempt (or paused by the circuit or an inactive subscription); succeeded; failed: its retries ran out.',
  }),
  attempts: Type.Integer({ minimum: 0 }),
  nextAttemptAt: Nullable(DateTime),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookEventTypeInfo = EventTypeInfo;
export const WebhookEventTypeList = Type.Array(WebhookEventTypeInfo, {
  examples: [[{ type: 'transaction.created', description: EVENT_TYPE_DESCRIPTIONS['transaction.created'] }]],
});
export type WebhookEventTypeList = Static<typeof WebhookEventTypeList>;

// ---- Bodies and queries of the HTTP routes (the routes reuse these; the commands add the owner) ----

export const CreateWebhookBody = Type.Object(
  {
    url: WebhookUrl,
    eventTypes: EventTypesField,
    ipWhitelist: Type.Optional(IpWhitelistField),
    metadata: Type.Optional(MetadataField),
  },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    eventTypes: Type.Optional(EventTypesField),
    isActive: Type.Optional(Type.Boolean({ description: 'false pauses deliveries (new events are not queued); true resumes them.' })),
    ipWhitelist: Type.Optional(IpWhitelistField),
    metadata: Type.Optional(MetadataField),
  },
  { additionalProperties: false },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const ListWebhooksQuery = Type.Object(
  {
    isActive: Type.Optional(Type.Boolean()),
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only subscriptions naming this event type.' })),
  },
  { additionalProperties: false },
);
export type ListWebhooksQuery = Static<typeof ListWebhooksQuery>;

export const DeliveryLogsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: WEBHOOK_LIMITS.deliveryLogsMaxLimit, default: WEBHOOK_LIMITS.deliveryLogsDefaultLimit }),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    successOnly: Type.Optional(Type.Boolean({ description: 'Only successful attempts.' })),
    failuresOnly: Type.Optional(Type.Boolean({ description: 'Only failed attempts (not with successOnly).' })),
  },
  { additionalProperties: false },
);
export type DeliveryLogsQuery = Static<typeof DeliveryLogsQuery>;

export const ReplayWebhookBody = Type.Object(
  {
    from: DateTime,
    to: DateTime,
    onlyFailed: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Queue again only the events whose delivery failed or never existed; by default succeeded ones are sent again too.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReplayWebhookBody = Static<typeof ReplayWebhookBody>;

export const ReplayResult = Type.Object({
  /** Events of the range the subscription matches (owner and event types), up to the per-call limit. */
  matched: Type.Integer({ minimum: 0 }),
  /** New deliveries, for events the subscription never had one for (created before it, or while inactive). */
  created: Type.Integer({ minimum: 0 }),
  /** Existing deliveries queued again with a fresh retry schedule (same delivery id). */
  requeued: Type.Integer({ minimum: 0 }),
  /** Deliveries already waiting for an attempt: left as they were. */
  alreadyPending: Type.Integer({ minimum: 0 }),
  /** Succeeded deliveries skipped because of `onlyFailed`. */
  skipped: Type.Integer({ minimum: 0 }),
  /** When the range held more than `WEBHOOK_LIMITS.replayMaxEvents` events: replay again from here. */
  resumeFrom: Nullable(DateTime),
});
export type ReplayResult = Static<typeof ReplayResult>;

// ---- The commands ----

const SubscriptionRef = { owner: WebhookOwner, subscriptionId: Uuid };
const strict = { additionalProperties: false } as const;
/** The request of a command on one subscription: its owner and id. */
const SubscriptionRequest = Type.Object(SubscriptionRef, strict);
/** The request of a command on one subscription that takes more `fields`. */
const subscriptionRequest = <T extends TProperties>(fields: T) => Type.Object({ ...SubscriptionRef, ...fields }, strict);

export const WebhookCommands = {
  /** GET /api/v1/webhooks, GET /workspaces/{id}/webhooks. Errors: VALIDATION_ERROR, INVALID_EVENT_TYPES (unknown `eventType` filter). */
  list: defineCommand(
    'cmd.webhooks.subscriptions.list',
    Type.Object({ owner: WebhookOwner, ...ListWebhooksQuery.properties }, strict),
    Type.Array(WebhookSubscription),
    "Lists the owner's subscriptions, newest first, optionally filtered.",
  ),
  /** POST .../webhooks (201). Errors: VALIDATION_ERROR (url, ipWhitelist, metadata), INVALID_EVENT_TYPES, CONFLICT (limit per owner). */
  create: defineCommand(
    'cmd.webhooks.subscriptions.create',
    Type.Object({ owner: WebhookOwner, ...CreateWebhookBody.properties }, strict),
    WebhookSubscriptionWithSecret,
    'Creates a subscription and returns it with its secret (the only time the secret is shown).',
  ),
  /** GET .../webhooks/events/types. No errors. */
  eventTypes: defineCommand(
    'cmd.webhooks.event-types',
    Type.Object({}, strict),
    WebhookEventTypeList,
    'The event types a subscription can name.',
  ),
  /** GET .../webhooks/{id}. Errors: NOT_FOUND. */
  get: defineCommand('cmd.webhooks.subscriptions.get', SubscriptionRequest, WebhookSubscription, 'One subscription.'),
  /** PATCH .../webhooks/{id}. Errors: VALIDATION_ERROR, INVALID_EVENT_TYPES, NOT_FOUND. */
  update: defineCommand(
    'cmd.webhooks.subscriptions.update',
    subscriptionRequest(UpdateWebhookBody.properties),
    WebhookSubscription,
    'Changes the given fields; absent fields stay as they are.',
  ),
  /** DELETE .../webhooks/{id}. Errors: NOT_FOUND. */
  delete: defineCommand(
    'cmd.webhooks.subscriptions.delete',
    SubscriptionRequest,
    Type.Object({ id: Uuid, deleted: Type.Literal(true), message: Type.String() }),
    'Deletes the subscription, its pending deliveries and its logs.',
  ),
  /** GET .../webhooks/{id}/delivery-logs. Errors: VALIDATION_ERROR (successOnly with failuresOnly), NOT_FOUND. */
  deliveryLogs: defineCommand(
    'cmd.webhooks.subscriptions.delivery-logs',
    subscriptionRequest(DeliveryLogsQuery.properties),
    WebhookDeliveryLogList,
    'Delivery attempts, newest first, with the total for the filters.',
  ),
  /** POST .../webhooks/{id}/rotate-secret. Errors: NOT_FOUND. */
  rotateSecret: defineCommand(
    'cmd.webhooks.subscriptions.rotate-secret',
    SubscriptionRequest,
    WebhookSubscriptionWithSecret,
    'Issues a new secret; deliveries are signed with the new and the previous one until complete-rotation.',
  ),
  /** POST .../webhooks/{id}/complete-rotation. Errors: NO_ROTATION_IN_PROGRESS, NOT_FOUND. */
  completeRotation: defineCommand(
    'cmd.webhooks.subscriptions.complete-rotation',
    SubscriptionRequest,
    WebhookSubscription,
    'Retires the previous secret; deliveries are signed with the new one only.',
  ),
  /** POST .../webhooks/{id}/reset-circuit-breaker. Errors: NOT_FOUND. */
  resetCircuitBreaker: defineCommand(
    'cmd.webhooks.subscriptions.reset-circuit-breaker',
    SubscriptionRequest,
    WebhookSubscription,
    'Forces the circuit CLOSED (failure count 0, any Retry-After pause lifted).',
  ),
  /**
   * POST .../webhooks/{id}/test. Errors: NOT_FOUND. Waits for the receiver: send with
   * `timeoutMs: WEBHOOK_TEST_COMMAND_TIMEOUT_MS`. A failed test is a 200 with `success: false`.
   */
  test: defineCommand(
    'cmd.webhooks.subscriptions.test',
    SubscriptionRequest,
    WebhookDeliveryLog,
    'Sends one signed `webhook.test` delivery now and returns its log entry.',
  ),
  /** Workspace API, beyond the spec: POST .../webhooks/{id}/deliveries/{deliveryId}/resend. Errors: NOT_FOUND. */
  resendDelivery: defineCommand(
    'cmd.webhooks.deliveries.resend',
    subscriptionRequest({ deliveryId: Uuid }),
    WebhookDelivery,
    'Queues one delivery for an attempt now, with a fresh retry schedule and the same delivery id.',
  ),
  /** Workspace API, beyond the spec: POST .../webhooks/{id}/replay. Errors: VALIDATION_ERROR (range), NOT_FOUND. */
  replay: defineCommand(
    'cmd.webhooks.deliveries.replay',
    subscriptionRequest(ReplayWebhookBody.properties),
    ReplayResult,
    'Queues the events of a time range (by event time) that the subscription matches.',
  ),
  /** For workspace deletion and platform deactivation: deactivates every subscription of the owner. No errors. */
  deactivateOwner: defineCommand(
    'cmd.webhooks.owners.deactivate',
    Type.Object({ owner: WebhookOwner, reason: Type.Optional(Type.String({ maxLength: 200 })) }, strict),
    Type.Object({ deactivated: Type.Integer({ minimum: 0 }) }),
    "Deactivates all of the owner's subscriptions (their pending deliveries pause).",
  ),
} as const satisfies Record<string, CommandDefinition>;
