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

/** A durable consumer as the NATS setup creates it; its process only binds to it. */
export interface DurableConsumerDefinition {
  name: string;
  /** The process that reads it (its NATS user may read and ack it, nothing else). */
  owner: 'payments-service' | 'workspace-service' | 'webhook-dispatcher' | 'chain-indexer';
  stream: StreamName;
  /** Contract subject (without prefix). */
  filterSubject: string;
  /** `new`: from the consumer's creation on, not the days the stream keeps. */
  deliverPolicy: 'all' | 'new';
}

/**
 * Every durable consumer. Streams and consumers are created (and kept up to date) by the NATS
 * setup that runs before the processes, as migrations do (issue 28 item 7): a process's NATS user
 * administers neither streams nor another process's consumer (the dispatcher's could update the
 * CHAIN stream and delete the others' consumers).
 */
export const DURABLE_CONSUMERS: Record<keyof typeof CONSUMERS, DurableConsumerDefinition> = {
  dispatcherEvents: {
    name: CONSUMERS.dispatcherEvents,
    owner: 'webhook-dispatcher',
    stream: 'EVENTS',
    filterSubject: PAYMENTS_EVENTS,
    deliverPolicy: 'all',
  },
  paymentsChain: {
    name: CONSUMERS.paymentsChain,
    owner: 'payments-service',
    stream: 'CHAIN',
    filterSubject: STREAMS.CHAIN.subjects[0],
    deliverPolicy: 'all',
  },
  // The first setup of a deployment notifies from then on, not the 30 days the stream keeps.
  workspaceNotifications: {
    name: CONSUMERS.workspaceNotifications,
    owner: 'workspace-service',
    stream: 'EVENTS',
    filterSubject: PAYMENTS_EVENTS,
    deliverPolicy: 'new',
  },
};

/** Queue group of a process's command handlers: one instance answers each request. */
export function commandQueue(service: string): string {
  return `q.${service}`;
}

/** Core NATS (not JetStream) subjects for broadcasts every instance must see. */
export const BROADCASTS = {
  /** A revoked token id or a deactivated credential: every payments instance drops it from its caches. */
  paymentsCredentialRevoked: 'bcast.payments.credential-revoked',
} as const;
