import { AppError } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureRawBody, type HttpApp } from '../src/index.js';
import { quietApp } from './quiet-app.js';

let app: HttpApp;
let base: string;

beforeAll(async () => {
  app = await quietApp('raw-body-test', {
    bodyLimit: 64,
    apiVersion: () => 'v1',
  });
  app.post(
    '/signed',
    {
      preParsing: [
        captureRawBody(),
        async (request) => {
          if (request.headers['x-sig'] !== request.rawBody?.toString('hex')) throw new AppError('UNAUTHORIZED', 'bad signature');
        },
      ],
      schema: { body: Type.Object({ n: Type.Integer() }) },
    },
    async (request) => ({ raw: request.rawBody?.toString('utf8'), parsed: request.body }),
  );
  app.post('/plain', { schema: { body: Type.Object({ n: Type.Integer() }) } }, async (request) => ({ raw: request.rawBody ?? null }));
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => app?.close());

const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
  const res = await request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, never> };
};

describe('captureRawBody', () => {
  it('keeps the exact bytes for the hooks after it and still parses and validates the JSON', async () => {
    const raw = '{ "n" :  7 }';
    const res = await post('/signed', raw, { 'x-sig': Buffer.from(raw).toString('hex') });
    expect(res).toEqual({ status: 200, body: { raw, parsed: { n: 7 } } });
  });

  it('lets the hook after it refuse before the body is parsed', async () => {
    const res = await post('/signed', 'not json', { 'x-sig': 'nope' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });

  it('leaves the usual JSON and validation errors to the parser', async () => {
    const raw = 'not json';
    expect((await post('/signed', raw, { 'x-sig': Buffer.from(raw).toString('hex') })).body).toMatchObject({
      error: { code: 'INVALID_JSON' },
    });
    const wrong = '{"n":"7"}';
    expect((await post('/signed', wrong, { 'x-sig': Buffer.from(wrong).toString('hex') })).body).toMatchObject({
      error: { code: 'VALIDATION_ERROR' },
    });
  });

  it("holds the route's body limit", async () => {
    const raw = JSON.stringify({ n: 1, pad: 'x'.repeat(100) });
    const res = await post('/signed', raw, { 'x-sig': Buffer.from(raw).toString('hex') });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('captures nothing on other routes', async () => {
    expect(await post('/plain', '{"n":1}')).toEqual({ status: 200, body: { raw: null } });
  });
});
