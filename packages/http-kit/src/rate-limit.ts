import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import { AppError } from '@holdfast/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import { clientAddressGroup } from './client-address.js';
import type { WindowCount, WindowCounter } from './window-counter.js';

/** The spec's four tiers. Every route names one in `config.tier`; unnamed routes are `standard`. */
export const RATE_LIMIT_TIERS = ['public', 'standard', 'high', 'admin'] as const;
export type RateLimitTier = (typeof RATE_LIMIT_TIERS)[number];

export const TIER_TITLES: Record<RateLimitTier, string> = {
  public: 'Public',
  standard: 'Standard',
  high: 'High-frequency',
  admin: 'Admin',
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Rate-limit tier of the route (spec "Limits"). */
    tier?: RateLimitTier;
    /** Operational routes (health, metrics) that are never limited. */
    unlimited?: boolean;
  }
}

export interface RateLimitSettings {
  /** Requests per minute per credential for each tier. */
  perMinute: Record<RateLimitTier, number>;
  counter: WindowCounter;
  /**
   * The caller the service has VERIFIED (a checked API key, a token whose signature holds), by a
   * stable id; undefined for anything else. A request without a verified caller counts against
   * its client address, so a random or refused credential never opens a fresh bucket of its own.
   * Absent: every request counts per client address. Public routes always count per address.
   */
  credentialOf?: (request: FastifyRequest) => string | undefined;
}

const WINDOW_MS = 60_000;

export function tierOf(request: FastifyRequest): RateLimitTier {
  return request.routeOptions.config?.tier ?? 'standard';
}

/** `/api/v1/things/:id` -> `/api/v1/things/{id}` (how OpenAPI writes the same path). */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Per-credential, per-tier limits over one-minute windows, counted by the settings' counter (in the
 * services: in memory, shared across instances through Redis, ADR 25), so any number of instances
 * enforce one limit within the tolerance of docs/security.md. Every answer (errors included) carries
 * X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix time of the window's end);
 * a 429 carries Retry-After and the RATE_LIMIT_EXCEEDED envelope.
 */
export async function registerRateLimits(app: FastifyInstance, settings: RateLimitSettings): Promise<void> {
  const credentialOf = settings.credentialOf ?? (() => undefined);
  // Created once the app's metrics registry exists (it is decorated after the plugins).
  let storeErrors: Counter | undefined;
  app.addHook('onReady', async () => {
    const registry = (app as FastifyInstance & { metrics?: Registry }).metrics;
    storeErrors = new Counter({
      name: 'holdfast_rate_limit_store_errors_total',
      help: 'Failures of the rate-limit counter store: requests let through unlimited, or exchanges with the shared store (Redis) that failed while each instance counted alone',
      registers: registry ? [registry] : [],
    });
  });
  settings.counter.reportStoreErrorsTo?.(() => storeErrors?.inc());

  class SharedStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow?: number,
      max?: number,
    ): void {
      const answer = ({ count, resetAtMs }: WindowCount) => callback(null, { current: count, ttl: Math.max(0, resetAtMs - Date.now()) });
      let counted: WindowCount | Promise<WindowCount>;
      try {
        counted = settings.counter.increment(key, timeWindow ?? WINDOW_MS, max ?? Number.POSITIVE_INFINITY);
      } catch (error) {
        counted = Promise.reject(error);
      }
      // Counted in memory (the common case): answered without waiting for a turn of the event loop.
      if (!(counted instanceof Promise)) {
        answer(counted);
        return;
      }
      counted.then(answer, (error: Error) => {
        // The request passes (skipOnError): an outage of the limiter must not take the API down,
        // but it must be seen.
        storeErrors?.inc();
        app.log.error({ err: error }, 'rate limiter: the counter store failed; the request is let through unlimited');
        callback(error);
      });
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  }

  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    store: SharedStore,
    timeWindow: WINDOW_MS,
    max: (request) => settings.perMinute[tierOf(request)],
    // Probes, metrics and the API documentation are never limited.
    allowList: (request) => request.routeOptions.config?.unlimited === true || request.url.startsWith('/docs'),
    keyGenerator: (request) => {
      const tier = tierOf(request);
      const who = tier === 'public' ? undefined : credentialOf(request);
      // An IPv6 client counts by its /64 (clientAddressGroup): a host holds a whole /64.
      return `${tier}:${who ?? `ip:${clientAddressGroup(request.ip)}`}`;
    },
    // A store outage must not take the API down: the request passes, logged and counted above.
    skipOnError: true,
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (request, context) => {
      const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
      return new AppError('RATE_LIMIT_EXCEEDED', `Rate limit of ${context.max} requests per minute exceeded; retry in ${retryAfter} s`, {
        tier: tierOf(request),
        limit: context.max,
        retryAfterSeconds: retryAfter,
      });
    },
  });

  // @fastify/rate-limit writes the seconds left in X-RateLimit-Reset; the spec wants the Unix time.
  // A callback hook: no promise and no microtask turn per answer (ADR 40).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const secondsLeft = Number(reply.getHeader('x-ratelimit-reset'));
    if (Number.isFinite(secondsLeft)) reply.header('x-ratelimit-reset', Math.ceil(Date.now() / 1000) + secondsLeft);
    done(null, payload);
  });
}
