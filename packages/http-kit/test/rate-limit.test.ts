import { createLogger } from '@holdfast/logging';
import { Type } from '@sinclair/typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, createHttpApp, createMemoryWindowCounter, errorResponses, type HttpApp } from '../src/index.js';

let app: HttpApp;
let base: string;

beforeAll(async () => {
  app = await createHttpApp({
    service: 'limits-test',
    logger: createLogger({ service: 'limits-test', level: 'silent' }),
    apiVersion: () => 'v2',
    openapi: { title: 'Limits', version: '1.0.0', description: 'limits' },
    rateLimit: { perMinute: { public: 3, standard: 5, high: 50, admin: 2 }, counter: createMemoryWindowCounter() },
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
    expect(refused.headers['x-ratelimit-remaining']).toBe('4');
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
