import { createWindowCounter, type SharedWindowCounter, type WindowStore } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { Redis } from 'ioredis';
import { createPollingWorker } from './worker.js';

/** How often an instance sends its counts to Redis and learns the others' (ADR 25). */
export const RATE_LIMIT_SYNC_INTERVAL_MS = 100;
/** A Redis that does not answer within this is treated as down for the exchange (counted per instance). */
const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/**
 * Window totals in Redis: per key one INCRBY (atomic across instances) and one PEXPIRE, and the
 * server's TIME (so instances cut the same windows), all in one pipelined round trip.
 */
export function createRedisWindowStore(redis: Redis): WindowStore {
  return {
    add: async (increments) => {
      const pipeline = redis.pipeline();
      pipeline.time();
      for (const { key, by, ttlMs } of increments) pipeline.incrby(key, by).pexpire(key, ttlMs);
      const replies = (await pipeline.exec()) ?? [];
      const failed = replies.find(([error]) => error);
      if (failed?.[0]) throw failed[0];
      const [seconds, micros] = (replies[0]?.[1] ?? []) as [string?, string?];
      return {
        nowMs: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000),
        totals: increments.map((_, i) => Number(replies[1 + 2 * i]?.[1])),
      };
    },
  };
}

export interface RateLimitCounter {
  counter: SharedWindowCounter;
  start: () => Promise<void>;
  /** Sends the last counts, then disconnects. */
  close: () => Promise<void>;
}

/**
 * The rate-limit counter of a process: in memory, shared with the other instances through Redis
 * when `redisUrl` is set (synced every 100 ms, and at once for a request near its limit). Keys are
 * namespaced by the process's database and schema: instances that share a database share limits,
 * as they did when the counts were rows of that database. Without `redisUrl`, or while Redis does
 * not answer, each instance limits on its own counts (logged, and counted in
 * holdfast_rate_limit_store_errors_total).
 */
export function createRateLimitCounter(options: { redisUrl?: string | undefined; namespace: string; logger: Logger }): RateLimitCounter {
  const log = options.logger.child({ component: 'rate-limit-counter' });
  if (!options.redisUrl) {
    return { counter: createWindowCounter(), start: async () => {}, close: async () => {} };
  }
  const redis = new Redis(options.redisUrl, {
    lazyConnect: true,
    // A request never queues behind a reconnect: while Redis is away, counts stay in memory.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectionName: options.namespace,
  });
  // Failures are reported by the exchanges (below), once per outage; ioredis reconnects by itself.
  redis.on('error', () => {});
  let closed = false;
  const counter = createWindowCounter({
    store: createRedisWindowStore(redis),
    namespace: `holdfast:rl:${options.namespace}`,
    // After close no worker runs: a late request near its limit syncs itself (and, Redis gone, is
    // answered on this instance's counts) rather than wait for a pass that never comes.
    requestSync: () => (closed ? void counter.sync() : worker.wake()),
    onStoreStateChange: (error) => {
      if (error) log.error({ err: error }, 'rate limiter: Redis does not answer; each instance limits on its own counts until it does');
      else log.info('rate limiter: Redis answers again; counts are shared across instances');
    },
  });
  const worker = createPollingWorker({
    name: 'rate-limit-sync',
    logger: options.logger,
    intervalMs: RATE_LIMIT_SYNC_INTERVAL_MS,
    pass: async () => {
      await counter.sync();
      return false;
    },
  });
  return {
    counter,
    start: async () => {
      await redis.connect().catch((error: Error) => {
        log.error({ err: error }, 'rate limiter: Redis does not answer at start; each instance limits on its own counts until it does');
      });
      await worker.start();
    },
    close: async () => {
      await worker.stop();
      closed = true;
      await counter.sync();
      redis.disconnect();
    },
  };
}
