import { AppError } from '@holdfast/contracts';
import { createLogger } from '@holdfast/logging';
import { Type } from '@sinclair/typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp, createWindowCounter, errorResponses, type HttpApp } from '../src/index.js';
import { quietApp } from './quiet-app.js';

const VERIFIED_KEYS = new Set(['key-a', 'key-b', 'key-c', 'key-sunset']);
let app: HttpApp;
let base: string;

beforeAll(async () => {
  app = await quietApp('limits-test', {
    apiVersion: () => 'v2',
    openapi: { title: 'Limits', version: '1.0.0', description: 'limits' },
    rateLimit: {
      perMinute: { public: 3, standard: 5, high: 50, admin: 2 },
      counter: createWindowCounter(),
      // What a service's authentication verified: here, keys it knows. Anything else is unverified.
      credentialOf: (req) => {
        const key = req.headers['x-api-key'];
        return typeof key === 'string' && VERIFIED_KEYS.has(key) ? `key:${key}` : undefined;
      },
    },
    deprecations: [
      {
        matches: (url) => url.startsWith('/old/'),
        sunset: 'Sun, 01 Nov 2026 00:00:00 GMT',
        link: () => '</new>',
        enforced: true,
        successor: '/new',
      },
    ],
  });
  app.get('/old/things', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }));
  app.post(
    '/login',
    { config: { tier: 'public' }, schema: { summary: 'log in', response: { 200: Type.Object({ ok: Type.Boolean() }) } } },
    async () => ({ ok: true }),
  );
  app.get('/things', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }), ...errorResponses(401) } } }, async (req) => {
    if (req.headers['x-api-key'] === 'wrong') throw new AppError('UNAUTHORIZED', 'Invalid API key');
    return { ok: true };
  });
  app.post('/admin/keys', { config: { tier: 'admin' }, schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({
    ok: true,
  }));
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(() => app.close());

const get = (path: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET') =>
  request(`${base}${path}`, { method, headers });

describe('rate limits', () => {
  it('counts per credential and sends the limit headers on successes and errors, reset as Unix time', async () => {
    const ok = await get('/things', { 'x-api-key': 'key-a' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-ratelimit-limit']).toBe('5');
    expect(ok.headers['x-ratelimit-remaining']).toBe('4');
    const reset = Number(ok.headers['x-ratelimit-reset']);
    const now = Date.now() / 1000;
    expect(reset).toBeGreaterThan(now);
    expect(reset).toBeLessThanOrEqual(now + 61);
    const refused = await get('/things', { 'x-api-key': 'wrong' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['x-ratelimit-limit']).toBe('5');
    const unknown = await get('/nowhere', { 'x-api-key': 'key-a' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('answers 429 with Retry-After and the envelope once a credential is over its tier, other credentials unaffected', async () => {
    for (let i = 0; i < 2; i++) expect((await get('/admin/keys', { 'x-api-key': 'key-b' }, 'POST')).statusCode).toBe(200);
    const over = await get('/admin/keys', { 'x-api-key': 'key-b' }, 'POST');
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    const body = (await over.body.json()) as {
      success: boolean;
      error: { code: string; statusCode: number; details: { tier: string; limit: number } };
    };
    expect(body.success).toBe(false);
    expect(body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, details: { tier: 'admin', limit: 2 } });
    expect((await get('/admin/keys', { 'x-api-key': 'key-c' }, 'POST')).statusCode).toBe(200);
  });

  it('counts random (unverified) credentials against the client address, never a fresh bucket each', async () => {
    const statuses: number[] = [];
    // The attack: a new made-up key on every request. Each would be a first request of its own
    // bucket if unverified keys counted per key; they all count against 127.0.0.1.
    for (let i = 0; i < 7; i++)
      statuses.push((await get('/admin/keys', { 'x-api-key': `random-${i}-${Math.random()}` }, 'POST')).statusCode);
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429, 429]);
    // A verified caller keeps its own bucket.
    expect((await get('/admin/keys', { 'x-api-key': 'key-a' }, 'POST')).statusCode).toBe(200);
  });

  it('counts public routes per client address whatever credential is sent', async () => {
    const statuses = [];
    for (const key of ['k1', 'k2', 'k3', 'k4']) statuses.push((await get('/login', { 'x-api-key': key }, 'POST')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('answers an enforced sunset with 410, the deprecation headers and the limit headers, on known and unknown paths', async () => {
    for (const path of ['/old/things', '/old/nowhere']) {
      const res = await get(path, { 'x-api-key': 'key-sunset' });
      expect(res.statusCode).toBe(410);
      expect(res.headers).toMatchObject({ deprecation: 'true', sunset: 'Sun, 01 Nov 2026 00:00:00 GMT', link: '</new>' });
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(((await res.body.json()) as { error: { code: string } }).error.code).toBe('API_VERSION_SUNSET');
    }
  });

  it('never limits probes and metrics, and names each operation tier in OpenAPI', async () => {
    for (let i = 0; i < 10; i++) expect((await get('/health')).statusCode).toBe(200);
    expect((await get('/health')).headers['x-ratelimit-limit']).toBeUndefined();
    const doc = (await (await get('/openapi.json')).body.json()) as {
      paths: Record<string, Record<string, { 'x-rate-limit-tier': string; description: string }>>;
    };
    expect(doc.paths['/login']?.post?.['x-rate-limit-tier']).toBe('public');
    expect(doc.paths['/things']?.get?.['x-rate-limit-tier']).toBe('standard');
    expect(doc.paths['/admin/keys']?.post?.description).toBe('Rate limit: Admin tier, 2 requests per minute per credential.');
  });
});

describe('a rate limiter whose store fails', () => {
  it('lets requests through, logs the failure and counts it in /metrics', async () => {
    const lines: string[] = [];
    const failing = await createHttpApp({
      service: 'limits-outage',
      logger: createLogger({ service: 'limits-outage', level: 'error', destination: { write: (line: string) => lines.push(line) } }),
      apiVersion: () => 'v2',
      rateLimit: {
        perMinute: { public: 1, standard: 1, high: 1, admin: 1 },
        counter: { increment: async () => Promise.reject(new Error('counter store down')) },
      },
    });
    failing.get('/things', async () => ({ ok: true }));
    const url = await failing.listen({ host: '127.0.0.1', port: 0 });
    try {
      for (let i = 0; i < 3; i++) expect((await request(`${url}/things`)).statusCode).toBe(200);
      const metrics = await (await request(`${url}/metrics`)).body.text();
      expect(metrics).toMatch(/^holdfast_rate_limit_store_errors_total\{service="limits-outage"\} 3$/m);
      const logged = lines.map((l) => JSON.parse(l) as { msg: string; err?: { message: string } });
      expect(logged.filter((l) => l.msg.startsWith('rate limiter: the counter store failed')).map((l) => l.err?.message)).toEqual([
        'counter store down',
        'counter store down',
        'counter store down',
      ]);
    } finally {
      await failing.close();
    }
  });
});

describe('client addresses behind a load balancer (TRUST_PROXY)', () => {
  async function publicApp(trustProxy?: false | number | string[]) {
    const limited = await createHttpApp({
      service: 'limits-proxy',
      logger: createLogger({ service: 'limits-proxy', level: 'silent' }),
      apiVersion: () => 'v2',
      ...(trustProxy === undefined ? {} : { trustProxy }),
      rateLimit: { perMinute: { public: 1, standard: 1, high: 1, admin: 1 }, counter: createWindowCounter() },
    });
    limited.get('/login', { config: { tier: 'public' } }, async (req) => ({ ip: req.ip }));
    return { limited, url: await limited.listen({ host: '127.0.0.1', port: 0 }) };
  }
  const from = (url: string, forwardedFor: string) => request(`${url}/login`, { headers: { 'x-forwarded-for': forwardedFor } });

  it('without it, ignores X-Forwarded-For: a client cannot pick a new address per request to escape its limit', async () => {
    const { limited, url } = await publicApp();
    try {
      expect((await from(url, '203.0.113.1')).statusCode).toBe(200);
      expect((await from(url, '203.0.113.2')).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('counts an IPv6 client by its /64 (security): another address of the same /64 is the same client, another /64 is not', async () => {
    const { limited, url } = await publicApp(1);
    try {
      expect((await from(url, '2001:db8:0:7::1')).statusCode).toBe(200);
      // Before: every address its own bucket, 2^64 of them for one host.
      expect((await from(url, '2001:db8:0:7:ffff:ffff:ffff:2')).statusCode).toBe(429);
      expect((await from(url, '2001:db8:0:7:0:0:0:3')).statusCode).toBe(429);
      expect((await from(url, '2001:db8:0:8::1')).statusCode).toBe(200);
      // An IPv4-mapped address is its IPv4 client.
      expect((await from(url, '203.0.113.50')).statusCode).toBe(200);
      expect((await from(url, '::ffff:203.0.113.50')).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('with the proxy hops or addresses, counts each client behind the load balancer apart', async () => {
    for (const trust of [1, ['127.0.0.1/32'], ['loopback']]) {
      const { limited, url } = await publicApp(trust);
      try {
        const first = await from(url, '203.0.113.1');
        expect(first.statusCode).toBe(200);
        expect(await first.body.json()).toEqual({ ip: '203.0.113.1' });
        expect((await from(url, '203.0.113.2')).statusCode).toBe(200);
        expect((await from(url, '203.0.113.1')).statusCode).toBe(429);
        // One hop trusted: a client's own X-Forwarded-For entry before the balancer's is not believed.
        if (trust === 1)
          expect((await (await from(url, '198.51.100.7, 203.0.113.3')).body.json()) as object).toEqual({ ip: '203.0.113.3' });
      } finally {
        await limited.close();
      }
    }
  });
});
