import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { createHttpApp, type HttpApp, syncZone } from '@holdfast/http-kit';
import { createLogger } from '@holdfast/logging';
import { freePort, testRedisUrl } from '@holdfast/test-fixtures';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimitCounter, type RateLimitCounter } from '../src/rate-limits.js';

// Two instances of one process (same namespace, as two replicas on one database) sharing Redis:
// one limit across them within the tolerance of docs/security.md; with Redis away, each instance
// limits on its own counts, logged and counted in /metrics.

interface Instance {
  app: HttpApp;
  url: string;
  limits: RateLimitCounter;
  logs: string[];
}

const PER_MINUTE = { public: 5, standard: 300, high: 1000, admin: 3 };

async function startInstance(namespace: string, redisUrl: string | undefined): Promise<Instance> {
  const logs: string[] = [];
  const logger = createLogger({ service: 'limits-shared', level: 'info', destination: { write: (line: string) => logs.push(line) } });
  const limits = createRateLimitCounter({ redisUrl, namespace, logger });
  await limits.start();
  const app = await createHttpApp({
    service: 'limits-shared',
    logger,
    apiVersion: () => 'v2',
    rateLimit: {
      perMinute: PER_MINUTE,
      counter: limits.counter,
      credentialOf: (req) => (typeof req.headers['x-api-key'] === 'string' ? `key:${req.headers['x-api-key']}` : undefined),
    },
  });
  app.get('/things', async () => ({ ok: true }));
  app.get('/login', { config: { tier: 'public' } }, async () => ({ ok: true }));
  app.post('/admin', { config: { tier: 'admin' } }, async () => ({ ok: true }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, limits, logs };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance) return;
  await instance.app.close();
  await instance.limits.close();
}

/** Windows are fixed minutes: start a counting test well inside one. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((r) => setTimeout(r, left + 200));
}

const call = (base: string, path: string, apiKey: string, method: 'GET' | 'POST' = 'GET') =>
  request(`${base}${path}`, { method, headers: { 'x-api-key': apiKey } });

describe('rate limits of two instances sharing Redis', () => {
  const namespace = `limits-test-${randomUUID()}`;
  let a: Instance;
  let b: Instance;
  let redis: Redis;

  beforeAll(async () => {
    [a, b] = await Promise.all([startInstance(namespace, testRedisUrl()), startInstance(namespace, testRedisUrl())]);
    redis = new Redis(testRedisUrl());
  });
  afterAll(async () => {
    await Promise.all([stopInstance(a), stopInstance(b)]);
    const keys = await redis.keys(`holdfast:rl:${namespace}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts one credential across both instances exactly near a small limit: headers and the 429 envelope unchanged', async () => {
    await freshWindow();
    const remaining: string[] = [];
    for (const base of [a.url, b.url, a.url]) {
      const res = await call(base, '/admin', 'key-exact', 'POST');
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(res.headers['x-ratelimit-remaining'] as string);
      await res.body.dump();
    }
    expect(remaining).toEqual(['2', '1', '0']);
    for (const base of [b.url, a.url]) {
      const over = await call(base, '/admin', 'key-exact', 'POST');
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(over.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
      expect(await over.body.json()).toMatchObject({
        success: false,
        data: null,
        error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, details: { tier: 'admin', limit: 3 } },
      });
    }
    // Another credential has its own count.
    expect((await call(b.url, '/admin', 'key-other', 'POST')).statusCode).toBe(200);
  });

  it('a burst on both instances at once lets through the limit and at most the documented tolerance, then refuses on both; Redis holds every request', async () => {
    await freshWindow();
    const limit = PER_MINUTE.standard;
    // docs/security.md: at most (instances - 1) x (limit - sync zone) over the limit.
    const tolerance = (2 - 1) * (limit - syncZone(limit));
    const total = 2 * limit + tolerance;
    const statuses: number[] = [];
    let sent = 0;
    // 10 requests in flight on each instance.
    const loop = async (base: string) => {
      while (sent < total) {
        sent += 1;
        const res = await call(base, '/things', 'key-burst');
        statuses.push(res.statusCode);
        await res.body.dump();
      }
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => loop(i % 2 ? a.url : b.url)));
    const passed = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(passed).toBeGreaterThanOrEqual(limit);
    expect(passed).toBeLessThanOrEqual(limit + tolerance);
    // The security property: past limit + tolerance, every instance refuses.
    for (const base of [a.url, b.url]) expect((await call(base, '/things', 'key-burst')).statusCode).toBe(429);
    // Every request was counted in the shared store (refused ones too) once the instances synced,
    // under a key that expires with its window.
    const keys = await redis.keys(`holdfast:rl:${namespace}:standard:key:key-burst@*`);
    expect(keys).toHaveLength(1);
    await expect.poll(async () => Number(await redis.get(keys[0] as string))).toBe(total + 2);
    expect(await redis.pttl(keys[0] as string)).toBeGreaterThan(0);
  });

  it('a credential that used its limit on one instance is refused by the other at once', async () => {
    await freshWindow();
    for (let i = 0; i < PER_MINUTE.public; i++) expect((await call(a.url, '/login', 'any')).statusCode).toBe(200);
    // B never counted this key in this window: its first request asks Redis before answering.
    expect((await call(b.url, '/login', 'any')).statusCode).toBe(429);
  });
});

describe('rate limits when Redis does not answer', () => {
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    // Nothing listens there.
    const nowhere = `redis://127.0.0.1:${await freePort()}`;
    const namespace = `limits-test-${randomUUID()}`;
    [a, b] = await Promise.all([startInstance(namespace, nowhere), startInstance(namespace, nowhere)]);
  });
  afterAll(() => Promise.all([stopInstance(a), stopInstance(b)]));

  it('each instance goes on limiting on its own counts, logs the outage once and counts the failed exchanges in /metrics', async () => {
    await freshWindow();
    for (const instance of [a, b]) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(instance.url, '/admin', 'key-alone', 'POST')).statusCode);
      // Documented: up to the limit per instance while Redis is away.
      expect(statuses).toEqual([200, 200, 200, 429]);
    }
    const metrics = await (await request(`${a.url}/metrics`)).body.text();
    const failures = Number(/^holdfast_rate_limit_store_errors_total\{service="limits-shared"\} (\d+)$/m.exec(metrics)?.[1]);
    expect(failures).toBeGreaterThan(0);
    const outages = a.logs
      .map((line) => JSON.parse(line) as { msg: string })
      .filter((l) => l.msg.startsWith('rate limiter: Redis does not answer'));
    expect(outages.length).toBeGreaterThanOrEqual(1);
    expect(outages.length).toBeLessThanOrEqual(2);
  });
});

/** A TCP relay to the test Redis that can be cut and restored: an outage without touching the shared Redis. */
async function redisRelay(): Promise<{ url: string; cut: () => Promise<void>; restore: () => Promise<void>; close: () => Promise<void> }> {
  const target = new URL(testRedisUrl());
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = tcpConnect({ host: target.hostname, port: Number(target.port || 6379) });
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => {});
          socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const cut = async () => {
    await new Promise<void>((resolve) => {
      server?.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  };
  await listen();
  return { url: `redis://127.0.0.1:${port}`, cut, restore: listen, close: cut };
}

describe('rate limits when Redis goes away and comes back', () => {
  it('limits per instance during the outage, then shares counts again (logged at both ends)', async () => {
    const relay = await redisRelay();
    const namespace = `limits-test-${randomUUID()}`;
    const [a, b] = await Promise.all([startInstance(namespace, relay.url), startInstance(namespace, relay.url)]);
    try {
      await freshWindow();
      // Shared: one count across both.
      expect((await call(a.url, '/admin', 'key-outage-1', 'POST')).statusCode).toBe(200);
      expect((await call(b.url, '/admin', 'key-outage-1', 'POST')).statusCode).toBe(200);
      expect((await call(a.url, '/admin', 'key-outage-1', 'POST')).statusCode).toBe(200);
      expect((await call(b.url, '/admin', 'key-outage-1', 'POST')).statusCode).toBe(429);
      await relay.cut();
      // Away: each instance on its own counts, never more than the limit each.
      for (const instance of [a, b]) {
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await call(instance.url, '/admin', 'key-outage-2', 'POST')).statusCode);
        expect(statuses).toEqual([200, 200, 200, 429]);
      }
      await relay.restore();
      // Back: once both instances reconnected (their counts of the outage are sent at their next
      // sync), a caller is counted across both again.
      await expect.poll(() => a.limits.counter.shared() && b.limits.counter.shared()).toBe(true);
      const statuses: number[] = [];
      for (const base of [a.url, b.url, a.url, b.url]) statuses.push((await call(base, '/admin', 'key-outage-3', 'POST')).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
      for (const instance of [a, b]) {
        const messages = instance.logs.map((line) => (JSON.parse(line) as { msg: string }).msg);
        expect(messages).toContain('rate limiter: Redis does not answer; each instance limits on its own counts until it does');
        expect(messages).toContain('rate limiter: Redis answers again; counts are shared across instances');
      }
    } finally {
      await Promise.all([stopInstance(a), stopInstance(b)]);
      await relay.close();
    }
  });
});

describe('rate limits without REDIS_URL', () => {
  it('count in memory: one instance, the whole limit', async () => {
    const alone = await startInstance('unused', undefined);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(alone.url, '/admin', 'key-memory', 'POST')).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await stopInstance(alone);
    }
  });
});
