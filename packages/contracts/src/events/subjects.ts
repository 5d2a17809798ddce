import type { ChainEventKind } from './chain.js';
import type { EventType } from './domain-events.js';

/**
 * Every NATS subject, stream and durable consumer name, in one place. A process may prefix all of
 * them (NATS_SUBJECT_PREFIX) so that test runs, or tenants sharing a NATS cluster, never meet;
 * the prefixing is done by @holdfast/messaging, never by hand.
 */
export const STREAMS = {
  /** Domain events, each publisher on its own subjects (EVENT_PUBLISHERS). */
  EVENTS: { name: 'EVENTS', subjects: ['events.>'] },
  /** Decoded on-chain escrow events published by the chain-indexer. */
  CHAIN: { name: 'CHAIN', subjects: ['chain.>'] },
} as const;
export type StreamName = keyof typeof STREAMS;

/**
 * Domain events carry their publisher in the subject, `events.<publisher>.<type>`: NATS grants each
 * publisher only its own subjects and a reader names whose events it takes. One user that could
 * publish any `events.>` (workspace-service) forged a `transaction.completed` that the dispatcher
 * signed and delivered to another platform's webhook (issue 28 item 7). Payments is the only
 * publisher of domain events today; another would get its own `events.<name>.>`, never payments'.
 */
export const EVENT_PUBLISHERS = { payments: 'events.payments' } as const;

/** Every domain event of payments (`events.payments.>`): what the dispatcher, workspace's notifications and the event stream read. */
export const PAYMENTS_EVENTS = `${EVENT_PUBLISHERS.payments}.>`;

/** The subject of a domain event (payments publishes them all): `events.payments.<type>`. */
export function eventSubject<T extends EventType>(type: T): `events.payments.${T}` {
  return `${EVENT_PUBLISHERS.payments}.${type}`;
}

/** `chain.<network>.<kind>`, e.g. `chain.base-sepolia.escrow.created`; corrections travel on their event's subject. */
export function chainSubject(network: string, kind: ChainEventKind): string {
  return `chain.${network}.${kind}`;
}

/** Every CHAIN subject of one network (`chain.base-sepolia.>`), or of all with `*`. */
export function chainNetworkFilter(network: string): string {
  return `chain.${network}.>`;
}

/** Durable JetStream consumers, one per (process, purpose). Instances of a process share it. */
export const CONSUMERS = {
  dispatcherEvents: 'webhook-dispatcher-events',
  paymentsChain: 'payments-chain-events',
  workspaceNotifications: 'workspace-notifications',
} as const;

/** Queue group of a process's command handlers: one instance answers each request. */
export function commandQueue(service: string): string {
  return `q.${service}`;
}

/** Core NATS (not JetStream) subjects for broadcasts every instance must see. */
export const BROADCASTS = {
  /** A revoked token id or a deactivated credential: every payments instance drops it from its caches. */
  paymentsCredentialRevoked: 'bcast.payments.credential-revoked',
} as const;
