import { BROADCASTS, type CredentialInvalidationKind, CredentialRevokedBroadcast } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { assertPayload, type Bus, prefixed } from '@holdfast/messaging';
import { createPollingWorker } from '@holdfast/runtime';
import type { CredentialCache } from './cache.js';
import type { AuthRepository } from './repository.js';

/** How often each instance reads the invalidation table. */
export const INVALIDATION_POLL_MS = 200;
/** The cache is trusted only while the last completed poll started less than this long ago. */
export const CACHE_TRUST_MS = 1000;
const PRUNE_EVERY_MS = 10 * 60_000;

export interface InvalidationFeed {
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /** May cached credentials be used now? False before the first poll and while polls fail. */
  isFresh: (nowMs: number) => boolean;
  /** After a commit that wrote invalidations: drop them here and tell every other instance. */
  announce: (items: { kind: CredentialInvalidationKind; ref: string }[]) => void;
}

/**
 * Keeps the credential cache honest. Two paths, so that a revocation committed at T is refused
 * by every instance from T + 1 s at the latest:
 * - the NATS broadcast (BROADCASTS.paymentsCredentialRevoked) drops the entries within
 *   milliseconds on every instance that hears it;
 * - every instance also polls the `credential_invalidations` table every 200 ms, and uses its
 *   cache only while its last completed poll started less than 1 s ago; otherwise it verifies
 *   every credential against PostgreSQL. A lost broadcast or a NATS outage therefore cannot keep
 *   a revoked credential alive, and a database outage fails closed.
 */
export function createInvalidationFeed(deps: {
  repository: AuthRepository;
  cache: CredentialCache;
  bus: Bus;
  logger: Logger;
  pollMs?: number;
  trustMs?: number;
}): InvalidationFeed {
  const log = deps.logger.child({ component: 'credential-invalidation' });
  const pollMs = deps.pollMs ?? INVALIDATION_POLL_MS;
  const trustMs = deps.trustMs ?? CACHE_TRUST_MS;
  const subject = prefixed(deps.bus, BROADCASTS.paymentsCredentialRevoked);
  let subscription: ReturnType<Bus['nc']['subscribe']> | undefined;
  let horizon: string | undefined;
  let seen = new Set<number>();
  let freshFrom = Number.NEGATIVE_INFINITY;
  let failing = false;
  let prunedAt = Date.now();

  async function poll(): Promise<void> {
    const startedAt = Date.now();
    try {
      const { xmin, rows } = await deps.repository.pollInvalidations(horizon);
      const current = new Set<number>();
      for (const row of rows) {
        current.add(row.seq);
        if (!seen.has(row.seq)) deps.cache.invalidate(row.kind, row.ref);
      }
      seen = current;
      horizon = xmin;
      freshFrom = startedAt;
      if (startedAt - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = startedAt;
        await deps.repository.pruneInvalidations();
      }
      if (failing) log.info('credential invalidation polling recovered');
      failing = false;
    } catch (error) {
      if (!failing) log.warn({ err: error }, 'credential invalidation poll failed; verifying every credential in PostgreSQL');
      failing = true;
    }
  }

  // One poll a pass, `pollMs` after the last one ended; a failed poll is its own (it fails closed),
  // so the worker never backs off: the next poll is as soon as after a good one.
  let firstPolled!: () => void;
  const polled = new Promise<void>((resolve) => {
    firstPolled = resolve;
  });
  const worker = createPollingWorker({
    name: 'credential-invalidation',
    logger: deps.logger,
    intervalMs: pollMs,
    pass: async () => {
      await poll();
      firstPolled();
      return false;
    },
  });

  return {
    start: async () => {
      subscription = deps.bus.nc.subscribe(subject, {
        callback: (error, message) => {
          if (error) return;
          try {
            const payload: unknown = message.json();
            assertPayload(CredentialRevokedBroadcast, payload, 'credential revoked broadcast');
            deps.cache.invalidate(payload.kind, payload.ref);
          } catch (err) {
            log.warn({ err }, 'ignored a malformed credential broadcast');
          }
        },
      });
      await worker.start();
      await polled;
    },
    stop: async () => {
      await worker.stop();
      subscription?.unsubscribe();
    },
    isFresh: (nowMs) => nowMs - freshFrom < trustMs,
    announce: (items) => {
      for (const item of items) {
        deps.cache.invalidate(item.kind, item.ref);
        try {
          deps.bus.nc.publish(subject, JSON.stringify(item));
        } catch (error) {
          // The poll still carries the invalidation to every instance within a second.
          log.warn({ err: error }, 'credential broadcast not sent');
        }
      }
    },
  };
}
