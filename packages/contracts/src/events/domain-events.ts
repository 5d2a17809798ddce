import { type Static, type TSchema, Type } from '@sinclair/typebox';
import {
  CHECKOUT_SESSION_STATUSES,
  DateTime,
  DecimalString,
  FinalityLevelSchema,
  StringEnum,
  TransactionStatusSchema,
  Uuid,
} from '../common/domain.js';

/**
 * Event types delivered to webhook subscribers. The list is extensible (a new type is a backward
 * compatible change); a new type reaches only subscribers that name it.
 */
export const EVENT_TYPES = [
  'transaction.created',
  'transaction.escrowed',
  'transaction.completed',
  'transaction.failed',
  'transaction.refunded',
  'transaction.rescinded',
  'transaction.finality_updated',
  'transaction.reorged',
  'dispute.created',
  'dispute.resolved',
  'dispute.escalated',
  'evidence.submitted',
  'checkout.session.completed',
  'checkout.session.expired',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const EventTypeSchema = StringEnum(EVENT_TYPES);

/**
 * Types added after the first subscribers existed: delivered only to a subscription (or a stream)
 * that names them, never to one that asks for "every type" by leaving the list out (the spec: a
 * new type reaches only subscribers that name it).
 */
export const OPT_IN_EVENT_TYPES: readonly EventType[] = ['transaction.finality_updated', 'transaction.reorged'];
/** What "every type" means where a caller names none: all but the opt-in ones. */
export const DEFAULT_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((t) => !OPT_IN_EVENT_TYPES.includes(t));

export const EVENT_ID_PATTERN = '^evt_[0-9A-Za-z]{16,64}$';
export const EventId = Type.String({ pattern: EVENT_ID_PATTERN, description: 'Event id, `evt_` + a time-ordered id.' });

/** The transaction as events show it: `{id, status}` is the spec's minimum, the rest is added. */
export const TransactionRef = Type.Object({
  id: Uuid,
  status: TransactionStatusSchema,
  amount: Type.Optional(DecimalString),
  currency: Type.Optional(Type.String()),
  fromAddress: Type.Optional(Type.String()),
  toAddress: Type.Optional(Type.String()),
  blockchainNetwork: Type.Optional(Type.String()),
  batchId: Type.Optional(Type.Union([Uuid, Type.Null()])),
  customerId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

const transactionOnly = Type.Object({ transaction: TransactionRef });

export const DisputeRef = Type.Object({
  id: Uuid,
  transactionId: Uuid,
  status: Type.String(),
  currentTier: Type.String(),
  initiatedBy: Type.Optional(Type.String()),
  outcome: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  refundPercentage: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
});

/** A checkout session as its events show it (docs/checkout.md). */
export const CheckoutSessionRef = Type.Object({
  id: Uuid,
  status: StringEnum(CHECKOUT_SESSION_STATUSES),
  transactionId: Type.Union([Uuid, Type.Null()]),
  amount: DecimalString,
  currency: Type.String(),
  blockchainNetwork: Type.String(),
  toAddress: Type.String(),
  fromAddress: Type.Union([Type.String(), Type.Null()]),
  customerId: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  expiresAt: DateTime,
});

/** The `data` of each event type. */
export const EVENT_PAYLOADS = {
  'transaction.created': transactionOnly,
  'transaction.escrowed': Type.Object({
    transaction: TransactionRef,
    escrowAddress: Type.String(),
    txHash: Type.String(),
  }),
  'transaction.completed': Type.Object({ transaction: TransactionRef, txHash: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
  'transaction.failed': Type.Object({ transaction: TransactionRef, reason: Type.Optional(Type.String()) }),
  'transaction.refunded': Type.Object({
    transaction: TransactionRef,
    reason: Type.Union([Type.String(), Type.Null()]),
    txHash: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
  'transaction.rescinded': Type.Object({
    transaction: TransactionRef,
    reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    txHash: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
  'transaction.finality_updated': Type.Object({
    transaction: TransactionRef,
    /** The level the transaction's escrow reached (docs/chain.md, levels). */
    finality: FinalityLevelSchema,
    /** The level at which this transaction counts (becomes `escrowed`). */
    requiredFinality: FinalityLevelSchema,
    confirmations: Type.Integer({ minimum: 0 }),
    blockNumber: Type.Integer({ minimum: 0 }),
    blockHash: Type.String(),
    txHash: Type.String(),
  }),
  'transaction.reorged': Type.Object({
    transaction: TransactionRef,
    /** `reorg`: the block left the chain; `chain_reset`: a local chain was started anew. */
    reason: Type.String(),
    /** The status before (`escrowed` moves back to `pending`; a transaction not yet escrowed keeps its status). */
    previousStatus: TransactionStatusSchema,
    /** The level the withdrawn escrow had been announced at. */
    finality: FinalityLevelSchema,
    blockNumber: Type.Integer({ minimum: 0 }),
    blockHash: Type.String(),
    txHash: Type.String(),
  }),
  'dispute.created': Type.Object({ dispute: DisputeRef }),
  'dispute.resolved': Type.Object({ dispute: DisputeRef }),
  'dispute.escalated': Type.Object({ dispute: DisputeRef, previousTier: Type.String() }),
  'evidence.submitted': Type.Object({
    dispute: DisputeRef,
    evidence: Type.Object({ id: Uuid, type: Type.String(), title: Type.String(), submittedBy: Type.String() }),
  }),
  'checkout.session.completed': Type.Object({ session: CheckoutSessionRef }),
  'checkout.session.expired': Type.Object({ session: CheckoutSessionRef }),
} as const satisfies Record<EventType, TSchema>;

export type EventPayload<T extends EventType> = Static<(typeof EVENT_PAYLOADS)[T]>;

function envelopeOf<T extends EventType>(type: T) {
  return Type.Object(
    {
      id: EventId,
      type: Type.Literal(type),
      createdAt: DateTime,
      /** Owner of the event: the payments platform it belongs to; routes it to that platform's subscriptions. */
      platformId: Type.Union([Uuid, Type.Null()]),
      /** The workspace that platform belongs to, when any: routes it to the workspace's subscriptions. */
      workspaceId: Type.Optional(Type.Union([Uuid, Type.Null()])),
      data: EVENT_PAYLOADS[type],
    },
    { additionalProperties: false },
  );
}

/** An event on the bus: a discriminated union on `type`. Webhook bodies are `{id, type, createdAt, data}` of it. */
export const DomainEvent = Type.Unsafe<DomainEvent>(
  Type.Union(
    EVENT_TYPES.map((t) => envelopeOf(t)),
    {
      $id: 'DomainEvent',
      examples: [
        {
          id: 'evt_01JD2Z8Q4ZK7M2V9X3A1B2C3D4',
          type: 'transaction.escrowed',
          createdAt: '2026-11-21T10:00:00.000Z',
          platformId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff',
          data: {
            transaction: { id: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11', status: 'escrowed' },
            escrowAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
            txHash: '0x8f2a5c0e7b1d4a6e9c3f0b2d5e8a1c4f7b0e3d6a9c2f5b8e1d4a7c0f3b6e9d2a',
          },
        },
      ],
    },
  ),
);
/** Static type of DomainEvent: `type` narrows `data` (TypeBox's own inference of the union would not). */
export type DomainEvent = {
  [T in EventType]: {
    id: string;
    type: T;
    createdAt: string;
    platformId: string | null;
    workspaceId?: string | null;
    data: EventPayload<T>;
  };
}[EventType];
export type DomainEventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;

/** The body of a webhook delivery (operator contract: `{id, type, createdAt, data}`). */
export const WebhookBody = Type.Object(
  { id: EventId, type: EventTypeSchema, createdAt: DateTime, data: Type.Record(Type.String(), Type.Unknown()) },
  {
    $id: 'WebhookBody',
    examples: [
      {
        id: 'evt_01JD2Z8Q4ZK7M2V9X3A1B2C3D4',
        type: 'transaction.refunded',
        createdAt: '2026-11-21T10:00:00.000Z',
        data: { transaction: { id: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11', status: 'refunded' }, reason: 'dispute resolved' },
      },
    ],
  },
);
export type WebhookBody = Static<typeof WebhookBody>;

/** What each event type means, as the event-types endpoints list it. */
export const EVENT_TYPE_DESCRIPTIONS: Record<EventType, string> = {
  'transaction.created': 'A transaction is created; always the first event of its lifecycle.',
  'transaction.escrowed': 'Funds are locked on chain in the escrow contract.',
  'transaction.completed': 'Funds are released to the receiver (terminal).',
  'transaction.failed': 'A pre-escrow control failed or risk rejected the transaction (terminal).',
  'transaction.refunded': 'Funds are returned to the sender (terminal).',
  'transaction.rescinded': 'The sender cancelled during the hold period (terminal).',
  'transaction.finality_updated':
    "The transaction's escrow reached a new finality level (seen, confirmed, safe, finalized). Sent only to subscriptions that name it.",
  'transaction.reorged':
    'A reorg removed the block of an escrow already announced: the transaction moved back (escrowed -> pending) and nothing was paid on it. Sent only to subscriptions that name it.',
  'dispute.created': 'A dispute is opened.',
  'dispute.resolved': 'A dispute is resolved.',
  'dispute.escalated': 'A dispute escalates to the next tier.',
  'evidence.submitted': 'Evidence is submitted on a dispute.',
  'checkout.session.completed': "A checkout session's payment is locked in escrow (its transaction is `escrowed`).",
  'checkout.session.expired': 'A checkout session expired before any payer (its time ran out, or the platform expired it).',
};

export const EventTypeInfo = Type.Object({ type: EventTypeSchema, description: Type.String() });
export type EventTypeInfo = Static<typeof EventTypeInfo>;

/** The current event list, as the event-types endpoints return it. */
export function eventTypeCatalog(): EventTypeInfo[] {
  return EVENT_TYPES.map((type) => ({ type, description: EVENT_TYPE_DESCRIPTIONS[type] }));
}
