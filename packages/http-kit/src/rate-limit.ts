import { AppError } from '@holdfast/contracts';
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import { Counter, type Registry } from 'prom-client';
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

/** Requests a limit applies to: all but probes, metrics and the API documentation. */
const isUnlimited = (url: string, config: FastifyContextConfig | undefined) => config?.unlimited === true || url.startsWith('/docs');

/**
 * Per-credential, per-tier limits over one-minute windows, counted by the settings' counter (in the
 * services: in memory, shared across instances through Redis, ADR 25), so any number of instances
 * enforce one limit within the tolerance of docs/security.md. Every answer (errors included) carries
 * X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix time of the window's end);
 * a 429 carries Retry-After and the RATE_LIMIT_EXCEEDED envelope.
 *
 * Each limited route gets an onRequest hook of its own, after the app's (authentication has
 * verified the caller by then). The hook answers in the same turn when the count is in memory
 * (nearly always): @fastify/rate-limit, used before, awaited five promises per request and
 * rewrote X-RateLimit-Reset in an onSend hook (ADR 40). Answers the hook for a handler that no
 * route owns (the not-found handler's preHandler).
 */
export function registerRateLimits(app: FastifyInstance, settings: RateLimitSettings): onRequestHookHandler {
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

  /** Counts the request under its route's tier; answers through `done` (an error: over the limit). */
  const limit = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // Once per request, should a handler hand it on (the not-found handler).
    if (counted.has(request)) {
      done();
      return;
    }
    counted.add(request);
    const tier = tierOf(request);
    const max = settings.perMinute[tier];
    const who = tier === 'public' ? undefined : credentialOf(request);
    const key = `${tier}:${who ?? `ip:${request.ip}`}`;
    const answer = (count: number, resetAtMs: number) => {
      const now = Date.now();
      const secondsLeft = Math.ceil(Math.max(0, resetAtMs - now) / 1000);
      reply.header('x-ratelimit-limit', max);
      reply.header('x-ratelimit-remaining', Math.max(0, max - count));
      reply.header('x-ratelimit-reset', Math.ceil(now / 1000) + secondsLeft);
      if (count <= max) {
        done();
        return;
      }
      const retryAfter = Math.max(1, secondsLeft);
      reply.header('retry-after', secondsLeft);
      done(
        new AppError('RATE_LIMIT_EXCEEDED', `Rate limit of ${max} requests per minute exceeded; retry in ${retryAfter} s`, {
          tier,
          limit: max,
          retryAfterSeconds: retryAfter,
        }),
      );
    };
    let result: WindowCount | Promise<WindowCount>;
    try {
      result = settings.counter.increment(key, WINDOW_MS, max);
    } catch (error) {
      result = Promise.reject(error);
    }
    // Counted in memory (the common case): answered without waiting for a turn of the event loop.
    if (!(result instanceof Promise)) {
      answer(result.count, result.resetAtMs);
      return;
    }
    result.then(
      ({ count, resetAtMs }) => answer(count, resetAtMs),
      (error: Error) => {
        // The request passes: an outage of the limiter must not take the API down, but it must be
        // seen. Its headers say the whole limit is left, the window ending now.
        storeErrors?.inc();
        app.log.error({ err: error }, 'rate limiter: the counter store failed; the request is let through unlimited');
        answer(0, Date.now());
      },
    );
  };
  const counted = new WeakSet<FastifyRequest>();

  app.addHook('onRoute', (route) => {
    if (isUnlimited(route.url, route.config)) return;
    route.onRequest = [...[route.onRequest ?? []].flat(), limit] as typeof route.onRequest;
  });
  // Unknown URLs under /docs are the documentation's too.
  return (request, reply, done) => {
    if (request.url.startsWith('/docs')) done();
    else limit(request, reply, done);
  };
}
