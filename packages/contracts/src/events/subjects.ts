import type { ChainEventKind } from './chain.js';
import type { EventType } from './domain-events.js';

/**
 * Every NATS subject, stream and durable consumer name, in one place. A process may prefix all of
 * them (NATS_SUBJECT_PREFIX) so that test runs, or tenants sharing a NATS cluster, never meet;
 * the prefixing is done by @holdfast/messaging, never by hand.
 */
export const STREAMS = {
  /** Domain events from the outboxes of payments and workspace. */
  EVENTS: { name: 'EVENTS', subjects: ['events.>'] },
  /** Decoded on-chain escrow events published by the chain-indexer. */
  CHAIN: { name: 'CHAIN', subjects: ['chain.>'] },
} as const;
export type StreamName = keyof typeof STREAMS;

export function eventSubject<T extends EventType>(type: T): `events.${T}` {
  return `events.${type}`;
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
