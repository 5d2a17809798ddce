import { type Static, type TBoolean, type TNull, type TOptional, type TUnion, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from '../common/domain.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../common/pagination.js';
import { EVENT_TYPES } from '../events/domain-events.js';

// Workspace API: notifications of users about their workspace's payments and disputes, and each
// user's preferences (issue 9). docs/workspace-notifications.md lists types, priorities, defaults.

/** What a notification is about. The list may grow (clients show unknown types as they are). */
export const NOTIFICATION_TYPES = ['transaction', 'dispute'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const NOTIFICATION_PRIORITIES = ['low', 'normal', 'high'] as const;
export type NotificationPriority = (typeof NOTIFICATION_PRIORITIES)[number];

export const Notification = Type.Object(
  {
    id: Uuid,
    userId: Uuid,
    type: StringEnum(NOTIFICATION_TYPES),
    priority: StringEnum(NOTIFICATION_PRIORITIES),
    title: Type.String(),
    message: Type.String(),
    isRead: Type.Boolean(),
    readAt: Type.Union([DateTime, Type.Null()]),
    metadata: Type.Record(Type.String(), Type.Unknown(), {
      description:
        '`eventId`, `eventType`, `workspaceId`, `platformId`, and what the event names: `transactionId`, `transactionStatus`, ' +
        '`amount` (decimal string), `currency`, `network`, `disputeId`, `disputeStatus`, `tier`.',
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6ba0',
        userId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a',
        type: 'transaction',
        priority: 'normal',
        title: 'Payment escrowed',
        message: '250.00 USDC of payment 2b1d5e9e are held in escrow.',
        isRead: false,
        readAt: null,
        metadata: {
          eventId: 'evt_0193a1c27d4e7a109c1b2f3e4d5c6ba0',
          eventType: 'transaction.escrowed',
          workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
          transactionId: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11',
          transactionStatus: 'escrowed',
          amount: '250.00',
          currency: 'USDC',
        },
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type Notification = Static<typeof Notification>;

export const NotificationListQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
    unread: Type.Optional(Type.Boolean({ description: '`true`: only unread ones; `false`: only read ones; absent: all.' })),
  },
  { additionalProperties: false },
);
export type NotificationListQuery = Static<typeof NotificationListQuery>;

export const NotificationList = Type.Object({
  notifications: Type.Array(Notification, { description: 'Newest first.' }),
  unreadCount: Type.Integer({ minimum: 0, description: 'All of your unread notifications, whatever the filter and page.' }),
});
export type NotificationList = Static<typeof NotificationList>;

/** `{message, count}`: delete-all and mark-all-read. */
export const NotificationCountResult = Type.Object({ message: Type.String(), count: Type.Integer({ minimum: 0 }) });
export type NotificationCountResult = Static<typeof NotificationCountResult>;

type EventKey = (typeof EVENT_TYPES)[number];
const everyEvent = () => Object.fromEntries(EVENT_TYPES.map((t) => [t, Type.Boolean()])) as Record<EventKey, TBoolean>;
const someEvents = () =>
  Object.fromEntries(EVENT_TYPES.map((t) => [t, Type.Optional(Type.Union([Type.Boolean(), Type.Null()]))])) as Record<
    EventKey,
    TOptional<TUnion<[TBoolean, TNull]>>
  >;

const EXAMPLE_DEFAULTS: Record<EventKey, boolean> = {
  'transaction.created': false,
  'transaction.escrowed': true,
  'transaction.completed': true,
  'transaction.failed': true,
  'transaction.refunded': true,
  'transaction.rescinded': true,
  'transaction.finality_updated': false,
  'transaction.reorged': false,
  'dispute.created': true,
  'dispute.resolved': true,
  'dispute.escalated': true,
  'evidence.submitted': true,
  'checkout.session.completed': false,
  'checkout.session.expired': false,
};

export const NotificationPreferences = Type.Object(
  {
    userId: Uuid,
    events: Type.Object(everyEvent(), { description: 'For each event type, whether it reaches you (your choice, else the default).' }),
    defaults: Type.Object(everyEvent(), { description: 'The defaults, for every user.' }),
    updatedAt: Type.Union([DateTime, Type.Null()], { description: 'Null while you never changed anything.' }),
  },
  {
    examples: [
      {
        userId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a',
        // A user who turned evidence.submitted off and kept every other default.
        events: { ...EXAMPLE_DEFAULTS, 'evidence.submitted': false },
        defaults: EXAMPLE_DEFAULTS,
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type NotificationPreferences = Static<typeof NotificationPreferences>;

export const UpdateNotificationPreferencesBody = Type.Object(
  {
    events: Type.Object(someEvents(), {
      additionalProperties: false,
      minProperties: 1,
      description: 'The event types to change: `true` on, `false` off, `null` back to the default. Others keep their value.',
    }),
  },
  { additionalProperties: false },
);
export type UpdateNotificationPreferencesBody = Static<typeof UpdateNotificationPreferencesBody>;
