import { Writable } from 'node:stream';
import SwaggerParser from '@apidevtools/swagger-parser';
import { AppError } from '@holdfast/contracts';
import { createLogger } from '@holdfast/logging';
import { Type } from '@sinclair/typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp, envelope, errorResponses, type HttpApp } from '../src/index.js';

const logLines: Record<string, unknown>[] = [];
const destination = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

let app: HttpApp;
let base: string;
let natsUp = true;
let natsChecks = 0;
let natsCheckGate: Promise<void> | undefined;

beforeAll(async () => {
  app = await createHttpApp({
    service: 'kit-test',
    logger: createLogger({ service: 'kit-test', level: 'info', destination }),
    bodyLimit: 1024,
    apiVersion: (url) => (url.startsWith('/api/v1') ? 'v1' : 'v2'),
    openapi: { title: 'Kit test', version: '1.0.0', description: 'kit', tags: [{ name: 'things', description: 'things' }] },
    readiness: [
      { name: 'postgres', check: async () => {} },
      {
        name: 'nats',
        check: async () => {
          natsChecks += 1;
          await natsCheckGate;
          if (!natsUp) throw new Error('connection refused');
        },
      },
    ],
    deprecations: [
      {
        matches: (url) => url.startsWith('/api/v1/'),
        sunset: 'Sun, 01 Nov 2026 00:00:00 GMT',
        link: (url) => `<${url.replace('/api/v1/', '/api/v2/')}>; rel="successor-version"`,
        enforced: false,
        successor: '/api/v2',
      },
      {
        matches: (url) => url.startsWith('/api/v0/'),
        sunset: 'Mon, 01 Jun 2026 00:00:00 GMT',
        link: () => '</api/v1>; rel="successor-version"',
        enforced: true,
        successor: '/api/v1',
      },
    ],
  });
  const Thing = Type.Object(
    { name: Type.String({ minLength: 3 }), amount: Type.Number({ minimum: 0.01 }), tags: Type.Optional(Type.Array(Type.String())) },
    { additionalProperties: false },
  );
  app.post(
    '/api/v2/things',
    {
      schema: {
        tags: ['things'],
        body: Thing,
        response: { 201: Type.Object({ success: Type.Literal(true), data: Thing, meta: Type.Any() }), ...errorResponses(409) },
      },
    },
    async (req, reply) => {
      if (req.body.name === 'taken') throw new AppError('CONFLICT', 'name taken', { name: req.body.name });
      return reply.code(201).send(envelope(req, req.body));
    },
  );
  app.get('/api/v1/things', { schema: { response: { 200: Type.Array(Type.String()) } } }, async () => ['a']);
  app.get('/api/v0/things', async () => ['never']);
  app.get('/api/v2/boom', { schema: { response: { 200: Type.Object({}) } } }, async () => {
    throw new Error('relation "payments.secret_table" does not exist');
  });
  app.get('/api/v2/database-down', async () => {
    // As drizzle reports a query whose connection PostgreSQL closed while restarting.
    throw Object.assign(new Error('Failed query: insert into secret_table'), {
      cause: Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' }),
    });
  });
  app.get('/api/v2/slow', async () => {
    await new Promise((r) => setTimeout(r, 300));
    return { done: true };
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
});

async function call(method: 'GET' | 'POST', path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await request(`${base}${path}`, {
    method,
    body,
    headers: body ? { 'content-type': 'application/json', ...headers } : headers,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

describe('errors', () => {
  it('names every bad field in VALIDATION_ERROR and changes nothing', async () => {
    const res = await call('POST', '/api/v2/things', JSON.stringify({ name: 'ab', amount: 0, color: 'red' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'VALIDATION_ERROR', statusCode: 400 } });
    expect(res.body.error.details.errors).toEqual(
      expect.arrayContaining([
        { field: 'name', reason: 'must NOT have fewer than 3 characters' },
        { field: 'amount', reason: 'must be >= 0.01' },
        { field: 'color', reason: 'is not a known parameter' },
      ]),
    );
    expect(res.body.meta.requestId).toBe(res.headers['x-request-id']);
  });

  it('reports a missing field by name', async () => {
    const res = await call('POST', '/api/v2/things', JSON.stringify({ name: 'abc' }));
    expect(res.body.error.details.errors).toEqual([{ field: 'amount', reason: 'is required' }]);
  });

  it('answers malformed JSON, a wrong media type and an oversized body with envelopes', async () => {
    expect((await call('POST', '/api/v2/things', '{"name":')).body.error.code).toBe('INVALID_JSON');
    const media = await request(`${base}/api/v2/things`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/csv' } });
    expect(media.statusCode).toBe(415);
    expect(((await media.body.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const big = await call('POST', '/api/v2/things', JSON.stringify({ name: 'x'.repeat(2000), amount: 1 }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('turns an AppError into its status, code and details', async () => {
    const res = await call('POST', '/api/v2/things', JSON.stringify({ name: 'taken', amount: 1 }));
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({ code: 'CONFLICT', message: 'name taken', statusCode: 409, details: { name: 'taken' } });
  });

  it('hides the cause of a 500: no stack, no SQL', async () => {
    const res = await call('GET', '/api/v2/boom');
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error', statusCode: 500 });
    expect(res.text).not.toMatch(/secret_table|at .*\.ts/);
    expect(logLines.some((l) => l.level === 'error' && JSON.stringify(l).includes('secret_table'))).toBe(true);
  });

  it('answers a request that met a database outage with 503 SERVICE_UNAVAILABLE, not a 500', async () => {
    const res = await call('GET', '/api/v2/database-down');
    expect(res.status).toBe(503);
    expect(res.body.error).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'A service this request needs is unavailable; retry shortly',
      statusCode: 503,
    });
    expect(res.text).not.toMatch(/secret_table|127\.0\.0\.1/);
  });

  it('answers unknown routes with a 404 envelope', async () => {
    const res = await call('GET', '/api/v2/nothing-here?x=1');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'Route GET /api/v2/nothing-here does not exist', statusCode: 404 });
  });
});

describe('headers and logs', () => {
  it('sends X-API-Version and X-Request-Id on every answer, errors included', async () => {
    for (const path of ['/api/v2/boom', '/api/v1/things', '/health', '/nope']) {
      const res = await call('GET', path);
      expect(res.headers['x-api-version'], path).toBe(path.startsWith('/api/v1') ? 'v1' : 'v2');
      expect(res.headers['x-request-id'], path).toMatch(/^req_[0-9a-f]{32}$/);
    }
  });

  it('echoes a well-formed client request id and logs it with the request', async () => {
    const res = await call('GET', '/health', undefined, { 'x-request-id': 'client-abc-123', authorization: 'Bearer super-secret' });
    expect(res.headers['x-request-id']).toBe('client-abc-123');
    expect(logLines.some((l) => l.reqId === 'client-abc-123' && l.msg === 'request completed' && l.statusCode === 200)).toBe(true);
    expect(JSON.stringify(logLines)).not.toContain('super-secret');
  });

  it('marks deprecated routes and answers a sunset one with 410 and the same headers', async () => {
    const v1 = await call('GET', '/api/v1/things');
    expect(v1.status).toBe(200);
    expect(v1.headers).toMatchObject({
      deprecation: 'true',
      sunset: 'Sun, 01 Nov 2026 00:00:00 GMT',
      link: '</api/v2/things>; rel="successor-version"',
    });
    const v0 = await call('GET', '/api/v0/things');
    expect(v0.status).toBe(410);
    expect(v0.body.error.code).toBe('API_VERSION_SUNSET');
    expect(v0.headers).toMatchObject({ deprecation: 'true', sunset: 'Mon, 01 Jun 2026 00:00:00 GMT' });
  });
});

describe('operations endpoints', () => {
  it('reports readiness per dependency and names the failing one', async () => {
    expect((await call('GET', '/health')).body).toEqual({ status: 'ok' });
    expect((await call('GET', '/health/ready')).body).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok' } });
    natsUp = false;
    const down = await call('GET', '/health/ready');
    natsUp = true;
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'unavailable', checks: { postgres: 'ok', nats: 'connection refused' }, failing: ['nats'] });
  });

  // The route needs no credential and is not rate limited: a burst of anonymous requests must not
  // become as many dependency round trips.
  it('answers a burst of readiness requests from one probe of the dependencies', async () => {
    let release = () => {};
    natsCheckGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    natsChecks = 0;
    // Counted as the server receives them: the probe is held open until all 50 have arrived.
    let arrived = 0;
    const count = (req: { url?: string }) => {
      if (req.url === '/health/ready') arrived += 1;
    };
    app.server.on('request', count);
    const burst = Array.from({ length: 50 }, () => call('GET', '/health/ready'));
    await expect.poll(() => arrived, { timeout: 10_000 }).toBe(50);
    app.server.off('request', count);
    release();
    const answers = await Promise.all(burst);
    natsCheckGate = undefined;
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(natsChecks).toBe(1);
    // Once that probe ended, the next request probes again.
    expect((await call('GET', '/health/ready')).status).toBe(200);
    expect(natsChecks).toBe(2);
  });

  it('serves Prometheus metrics with request durations by route', async () => {
    const res = await request(`${base}/metrics`);
    const text = await res.body.text();
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(text).toMatch(/http_request_duration_seconds_count\{.*route="\/health".*\}/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('serves a valid OpenAPI 3.1 document generated from the route schemas, and a docs page', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
    const post = doc.paths['/api/v2/things'].post;
    // A body route also answers 413 and 415; a route with a path id 404 and 414 (issue 14).
    expect(Object.keys(post.responses).sort()).toEqual(['201', '400', '409', '413', '415', '429', '500', '503']);
    expect(doc.servers).toEqual([{ url: '/', description: 'The host that serves this document' }]);
    expect(doc.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Holdfast-Proprietary' });
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.components.schemas.ErrorEnvelope).toBeDefined();
    expect(doc.paths['/metrics']).toBeUndefined();
    const docs = await request(`${base}/docs/`);
    expect(docs.statusCode).toBe(200);
    expect(await docs.body.text()).toMatch(/swagger-ui/i);
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight request finish while the server closes', async () => {
    const other = await createHttpApp({
      service: 'drain',
      logger: createLogger({ service: 'drain', level: 'silent' }),
      apiVersion: () => 'v1',
    });
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    other.get('/slow', async () => {
      entered();
      await new Promise((r) => setTimeout(r, 300));
      return { done: true };
    });
    const url = await other.listen({ host: '127.0.0.1', port: 0 });
    const inFlight = request(`${url}/slow`).then(async (r) => ({ status: r.statusCode, body: await r.body.json() }));
    // Close only once the request is really in flight: on a loaded machine a fixed 50 ms pause was
    // sometimes shorter than the time the request took to arrive, and it met the closing server.
    await handlerEntered;
    await other.close();
    expect(await inFlight).toEqual({ status: 200, body: { done: true } });
    await expect(request(`${url}/slow`)).rejects.toThrow();
  });
});

describe('type conversion', () => {
  it('converts query strings but never a JSON body', async () => {
    const res = await call('POST', '/api/v2/things', JSON.stringify({ name: 'abc', amount: '12' }));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([{ field: 'amount', reason: 'must be number' }]);
    const typed = await call('POST', '/api/v2/things', JSON.stringify({ name: 12345, amount: 1 }));
    expect(typed.body.error.details.errors).toEqual([{ field: 'name', reason: 'must be string' }]);
  });
});
