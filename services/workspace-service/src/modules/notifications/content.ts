import {
  type DomainEvent,
  EVENT_TYPES,
  type EventType,
  type NotificationPriority,
  type NotificationType,
  type TransactionRef,
} from '@holdfast/contracts';
import type { Static } from '@sinclair/typebox';

/** How each event type becomes a notification, and whether it reaches a user who chose nothing. */
export const NOTIFICATION_RULES: Record<EventType, { type: NotificationType; priority: NotificationPriority; defaultOn: boolean }> = {
  'transaction.created': { type: 'transaction', priority: 'low', defaultOn: false },
  'transaction.escrowed': { type: 'transaction', priority: 'normal', defaultOn: true },
  'transaction.completed': { type: 'transaction', priority: 'normal', defaultOn: true },
  'transaction.failed': { type: 'transaction', priority: 'high', defaultOn: true },
  'transaction.refunded': { type: 'transaction', priority: 'normal', defaultOn: true },
  'transaction.rescinded': { type: 'transaction', priority: 'normal', defaultOn: true },
  // New types are opt-in everywhere (OPT_IN_EVENT_TYPES): a user who chose nothing gets neither.
  'transaction.finality_updated': { type: 'transaction', priority: 'low', defaultOn: false },
  'transaction.reorged': { type: 'transaction', priority: 'high', defaultOn: false },
  'dispute.created': { type: 'dispute', priority: 'high', defaultOn: true },
  'dispute.escalated': { type: 'dispute', priority: 'high', defaultOn: true },
  'dispute.resolved': { type: 'dispute', priority: 'normal', defaultOn: true },
  'evidence.submitted': { type: 'dispute', priority: 'normal', defaultOn: true },
  // Off by default: a completed session's transaction already announces `transaction.escrowed`.
  'checkout.session.completed': { type: 'transaction', priority: 'normal', defaultOn: false },
  'checkout.session.expired': { type: 'transaction', priority: 'low', defaultOn: false },
};

export type EventSwitches = Record<EventType, boolean>;
export type EventOverrides = Partial<Record<EventType, boolean>>;

export const DEFAULT_EVENT_SWITCHES: EventSwitches = Object.fromEntries(
  EVENT_TYPES.map((t) => [t, NOTIFICATION_RULES[t].defaultOn]),
) as EventSwitches;

/** A user's effective choices: what they set, else the default. Unknown keys in the stored overrides are ignored. */
export function effectiveSwitches(overrides: EventOverrides | null | undefined): EventSwitches {
  return Object.fromEntries(
    EVENT_TYPES.map((t) => [t, typeof overrides?.[t] === 'boolean' ? overrides[t] : DEFAULT_EVENT_SWITCHES[t]]),
  ) as EventSwitches;
}

export function wants(overrides: EventOverrides | null | undefined, type: EventType): boolean {
  return effectiveSwitches(overrides)[type];
}

export interface NotificationContent {
  type: NotificationType;
  priority: NotificationPriority;
  title: string;
  message: string;
  metadata: Record<string, unknown>;
}

/** One line of text from an event (reasons, outcomes), at most 200 characters. */
function clip(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line || undefined;
}

const short = (id: string) => id.slice(0, 8);

function amountOf(t: Static<typeof TransactionRef>): string | undefined {
  if (!t.amount) return undefined;
  return t.currency ? `${t.amount} ${t.currency}` : t.amount;
}

function transactionFacts(t: Static<typeof TransactionRef>): Record<string, unknown> {
  return {
    transactionId: t.id,
    transactionStatus: t.status,
    ...(t.amount !== undefined ? { amount: t.amount } : {}),
    ...(t.currency !== undefined ? { currency: t.currency } : {}),
    ...(t.blockchainNetwork !== undefined ? { network: t.blockchainNetwork } : {}),
  };
}

const sentence = (text: string, reason?: string) => (reason ? `${text}: ${reason}.` : `${text}.`);

/** The title, message and facts of the notification an event becomes. */
export function contentOf(event: DomainEvent, workspaceId: string): NotificationContent {
  const rule = NOTIFICATION_RULES[event.type];
  const base = { eventId: event.id, eventType: event.type, workspaceId, platformId: event.platformId };
  const of = (t: Static<typeof TransactionRef>) => {
    const amount = amountOf(t);
    return amount ? ` of ${amount}` : '';
  };
  let title: string;
  let message: string;
  let facts: Record<string, unknown>;
  switch (event.type) {
    case 'transaction.created': {
      const t = event.data.transaction;
      title = 'Payment created';
      message = sentence(`Payment ${short(t.id)}${of(t)} was created`);
      facts = transactionFacts(t);
      break;
    }
    case 'transaction.escrowed': {
      const t = event.data.transaction;
      title = 'Payment escrowed';
      message = sentence(`The funds of payment ${short(t.id)}${of(t)} are held in escrow`);
      facts = { ...transactionFacts(t), escrowAddress: event.data.escrowAddress, txHash: event.data.txHash };
      break;
    }
    case 'transaction.completed': {
      const t = event.data.transaction;
      title = 'Payment completed';
      message = sentence(`Payment ${short(t.id)}${of(t)} was released to the receiver`);
      facts = transactionFacts(t);
      break;
    }
    case 'transaction.failed': {
      const t = event.data.transaction;
      title = 'Payment failed';
      message = sentence(`Payment ${short(t.id)}${of(t)} failed`, clip(event.data.reason));
      facts = transactionFacts(t);
      break;
    }
    case 'transaction.refunded': {
      const t = event.data.transaction;
      title = 'Payment refunded';
      message = sentence(`Payment ${short(t.id)}${of(t)} was returned to the sender`, clip(event.data.reason));
      facts = transactionFacts(t);
      break;
    }
    case 'transaction.rescinded': {
      const t = event.data.transaction;
      title = 'Payment rescinded';
      message = sentence(`The sender cancelled payment ${short(t.id)}${of(t)}`, clip(event.data.reason));
      facts = transactionFacts(t);
      break;
    }
    case 'transaction.finality_updated': {
      const t = event.data.transaction;
      title = `Payment ${event.data.finality}`;
      message = sentence(
        `The escrow of payment ${short(t.id)}${of(t)} is ${event.data.finality} on chain (block ${event.data.blockNumber})`,
      );
      facts = { ...transactionFacts(t), finality: event.data.finality, blockNumber: event.data.blockNumber, txHash: event.data.txHash };
      break;
    }
    case 'transaction.reorged': {
      const t = event.data.transaction;
      title = 'Payment reorged';
      message = sentence(
        `A reorg removed the escrow of payment ${short(t.id)}${of(t)} from block ${event.data.blockNumber}: it is ${t.status} again`,
      );
      facts = { ...transactionFacts(t), reason: event.data.reason, blockNumber: event.data.blockNumber, txHash: event.data.txHash };
      break;
    }
    case 'checkout.session.completed':
    case 'checkout.session.expired': {
      const c = event.data.session;
      const amount = ` of ${c.amount} ${c.currency}`;
      facts = { checkoutSessionId: c.id, sessionStatus: c.status, transactionId: c.transactionId, amount: c.amount, currency: c.currency };
      if (event.type === 'checkout.session.completed') {
        title = 'Checkout completed';
        message = `Checkout ${short(c.id)}${amount} was paid into escrow.`;
      } else {
        title = 'Checkout expired';
        message = `Checkout ${short(c.id)}${amount} expired without a payment.`;
      }
      break;
    }
    case 'dispute.created':
    case 'dispute.escalated':
    case 'dispute.resolved':
    case 'evidence.submitted': {
      const d = event.data.dispute;
      facts = { disputeId: d.id, disputeStatus: d.status, tier: d.currentTier, transactionId: d.transactionId };
      if (event.type === 'dispute.created') {
        title = 'Dispute opened';
        message = `A dispute was opened on payment ${short(d.transactionId)} (${d.currentTier}).`;
      } else if (event.type === 'dispute.escalated') {
        title = 'Dispute escalated';
        message = `The dispute on payment ${short(d.transactionId)} moved from ${event.data.previousTier} to ${d.currentTier}.`;
      } else if (event.type === 'dispute.resolved') {
        title = 'Dispute resolved';
        message = sentence(`The dispute on payment ${short(d.transactionId)} was resolved`, clip(d.outcome));
        facts = { ...facts, outcome: d.outcome ?? null };
      } else {
        title = 'Evidence submitted';
        message = `Evidence "${clip(event.data.evidence.title)}" was submitted on the dispute over payment ${short(d.transactionId)}.`;
        facts = { ...facts, evidenceId: event.data.evidence.id };
      }
      break;
    }
  }
  return { type: rule.type, priority: rule.priority, title, message, metadata: { ...base, ...facts } };
}
