import { connect } from 'node:net';
import { type TSchema, Type } from '@sinclair/typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, errorResponses, type HttpApp, MAX_FIELD_ERRORS, PAGE_MAX } from '../src/index.js';
import { quietApp } from './quiet-app.js';

// Every input gets a 2xx or a 4xx in the error envelope (issue 14): framework errors included,
// strings PostgreSQL cannot store refused, numbers finite, error answers bounded.
let app: HttpApp;
let base: string;
const received: unknown[] = [];

beforeAll(async () => {
  app = await quietApp('any-input', {
    apiVersion: () => 'v1',
  });
  app.get(
    '/api/v1/things/:id',
    {
      schema: { params: Type.Object({ id: Type.String() }), response: { 200: Type.Object({ id: Type.String() }), ...errorResponses(404) } },
    },
    async (req) => ({ id: req.params.id }),
  );
  app.get(
    '/api/v1/things',
    {
      schema: {
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, default: 1 }),
          limit: Type.Integer({ minimum: 1, default: 20 }),
          amount: Type.Optional(Type.Number()),
          name: Type.Optional(Type.String()),
        }),
      },
    },
    async (req) => req.query,
  );
  app.post(
    '/api/v1/things',
    {
      schema: {
        body: Type.Object(
          {
            name: Type.String(),
            metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
            items: Type.Optional(Type.Array(Type.Integer())),
            amount: Type.Optional(Type.Number()),
            // Declared nesting (not free-form): 62 levels of arrays, to reach the body's limit.
            grid: Type.Optional(Array.from({ length: 62 }).reduce<TSchema>((inner) => Type.Array(inner), Type.Integer())),
            notes: Type.Optional(Type.Array(Type.Unknown())),
            settings: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req, reply) => {
      received.push(req.body);
      return reply.code(201).send(envelope(req, req.body));
    },
  );
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
});

async function call(method: 'GET' | 'POST', path: string, body?: string) {
  const res = await request(`${base}${path}`, { method, body, headers: body ? { 'content-type': 'application/json' } : {} });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(text), text };
}

/** Sends raw bytes on a socket and returns what came back (for requests undici refuses to send). */
function raw(bytes: string): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function expectEnvelope(
  res: { status: number; body: { success: boolean; data: null; error: Record<string, unknown>; meta: Record<string, unknown> } },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, data: null, error: { code, statusCode: status, message: expect.any(String) } });
  expect(res.body.meta.requestId).toMatch(/^req_/);
}

describe('deeply nested JSON (issue 28 item 8: about 2,500 levels answered 500 on every JSON route)', () => {
  const nested = (levels: number) => `{"name":"x","metadata":{"a":${'['.repeat(levels)}1${']'.repeat(levels)}}}`;

  it('refuses a body nested deeper than 64 levels with 400 VALIDATION_ERROR, on a route and on an unknown path, and runs nothing', async () => {
    const before = received.length;
    for (const levels of [63, 2_500, 100_000]) {
      const res = await call('POST', '/api/v1/things', nested(levels));
      expectEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.details).toEqual({ maxDepth: 64 });
    }
    expectEnvelope(await call('POST', '/api/v1/nowhere', nested(2_500)), 400, 'VALIDATION_ERROR');
    expect(received.length).toBe(before);
  });

  it('takes a body at the limit, and brackets inside strings do not count', async () => {
    const res = await call('POST', '/api/v1/things', `{"name":"${'[{'.repeat(500)}","grid":${'['.repeat(62)}1${']'.repeat(62)}}`);
    expect(res.status, res.text).toBe(201);
  });

  it('a free-form value (a record of anything, an array of anything) nests at most 8 levels and 64 KiB: 400 naming the field', async () => {
    const nested = (levels: number): unknown => (levels === 1 ? { end: true } : { n: nested(levels - 1) });
    expect((await call('POST', '/api/v1/things', JSON.stringify({ name: 'ok', metadata: nested(8) }))).status).toBe(201);
    const deep = await call('POST', '/api/v1/things', JSON.stringify({ name: 'x', metadata: nested(9) }));
    expectEnvelope(deep, 400, 'VALIDATION_ERROR');
    expect(deep.body.error.details.errors).toEqual([{ field: 'metadata', reason: 'must nest objects and arrays at most 8 levels deep' }]);
    const item = await call('POST', '/api/v1/things', JSON.stringify({ name: 'x', notes: ['fine', nested(9)] }));
    expect(item.body.error.details.errors).toEqual([{ field: 'notes.1', reason: 'must nest objects and arrays at most 8 levels deep' }]);
    // A free-form option of a union (a nullable record) is bounded too.
    const nullable = await call('POST', '/api/v1/things', JSON.stringify({ name: 'x', settings: nested(9) }));
    expect(nullable.body.error.details.errors).toEqual([
      { field: 'settings', reason: 'must nest objects and arrays at most 8 levels deep' },
    ]);
    expect((await call('POST', '/api/v1/things', JSON.stringify({ name: 'ok', settings: null }))).status).toBe(201);
    const big = await call('POST', '/api/v1/things', JSON.stringify({ name: 'x', metadata: { blob: 'y'.repeat(66_000) } }));
    expect(big.body.error.details.errors).toEqual([{ field: 'metadata', reason: 'must be at most 65536 bytes as JSON (got 66011)' }]);
  });
});

describe('framework errors leave in the envelope', () => {
  it('bad percent-encoding in a path: 400 VALIDATION_ERROR, not FST_ERR_BAD_URL', async () => {
    const res = await call('GET', '/api/v1/things/%ZZ');
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/percent-encoding/);
    expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
  });

  it('a path parameter over the length limit: 414 URI_TOO_LONG', async () => {
    const res = await call('GET', `/api/v1/things/${'a'.repeat(101)}`);
    expectEnvelope(res, 414, 'URI_TOO_LONG');
  });

  it('a malformed request line: 400 in the envelope', async () => {
    const answer = await raw('GARBAGE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ success: false, data: null, error: { code: 'VALIDATION_ERROR', statusCode: 400 } });
  });

  it('headers over the size limit: 431 HEADERS_TOO_LARGE in the envelope', async () => {
    const answer = await raw(`GET /api/v1/things HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body.error).toMatchObject({ code: 'HEADERS_TOO_LARGE', statusCode: 431 });
  });
});

describe('strings PostgreSQL cannot store', () => {
  it('refuses a NUL in a body field, naming the field, and the handler never runs', async () => {
    const before = received.length;
    const res = await call('POST', '/api/v1/things', JSON.stringify({ name: 'a\u0000b' }));
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.errors).toEqual([{ field: 'name', reason: expect.stringMatching(/NUL/) }]);
    expect(received.length).toBe(before);
  });

  it('refuses a lone surrogate deep in a body, in a value and in a key', async () => {
    const res = await call('POST', '/api/v1/things', '{"name":"ok","metadata":{"a":["x","\\ud800"],"\\udc00k":1}}');
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.errors.map((e: { field: string }) => e.field)).toEqual(['metadata.a.1', 'metadata.\uFFFDk']);
  });

  it('refuses a NUL in a query string and in a path parameter', async () => {
    const query = await call('GET', '/api/v1/things?name=%00');
    expectEnvelope(query, 400, 'VALIDATION_ERROR');
    expect(query.body.error.details.errors).toEqual([{ field: 'name', reason: expect.stringMatching(/NUL/) }]);
    const path = await call('GET', '/api/v1/things/a%00b');
    expectEnvelope(path, 400, 'VALIDATION_ERROR');
    expect(path.body.error.details.errors[0].field).toBe('id');
  });

  it('takes ordinary unicode, pairs of surrogates included', async () => {
    const res = await call('POST', '/api/v1/things', JSON.stringify({ name: 'Zoë 😀 日本' }));
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('Zoë 😀 日本');
  });
});

describe('numbers are finite and bounded', () => {
  it('refuses 1e309 (Infinity) in a query and in a body', async () => {
    expectEnvelope(await call('GET', '/api/v1/things?limit=1e309'), 400, 'VALIDATION_ERROR');
    expectEnvelope(await call('GET', '/api/v1/things?amount=1e309'), 400, 'VALIDATION_ERROR');
    expectEnvelope(await call('POST', '/api/v1/things', '{"name":"x","amount":1e309}'), 400, 'VALIDATION_ERROR');
  });

  it(`refuses a page over ${PAGE_MAX} even where the route declares no maximum`, async () => {
    const res = await call('GET', '/api/v1/things?page=99999999999999999999');
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.errors).toEqual([{ field: 'page', reason: `must be <= ${PAGE_MAX}` }]);
    expect((await call('GET', `/api/v1/things?page=${PAGE_MAX}`)).status).toBe(200);
  });
});

describe('error answers are bounded', () => {
  it(`lists at most ${MAX_FIELD_ERRORS} bad fields and says how many more`, async () => {
    const items = Array.from({ length: 10_000 }, () => 'x');
    const res = await call('POST', '/api/v1/things', JSON.stringify({ name: 'x', items }));
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(res.body.error.details.more).toBe(10_000 - MAX_FIELD_ERRORS);
    expect(res.text.length).toBeLessThan(8192);
  });

  it('cuts a field name it echoes (an unknown key of 100 kB)', async () => {
    const res = await call('POST', '/api/v1/things', JSON.stringify({ name: 'x', ['k'.repeat(100_000)]: 1 }));
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.text.length).toBeLessThan(8192);
  });
});
