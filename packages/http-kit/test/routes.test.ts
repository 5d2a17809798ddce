import { defineEndpoint, type Endpoint, NoContent, SuccessEnvelope } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpApp, paged, type RouteSurface, route, serveRoutes } from '../src/index.js';
import { quietApp } from './quiet-app.js';

// serveRoutes (ADR 64): the surface gives each entry's config and twins, the kit wraps the answers
// of an enveloped surface and answers the entry's one success status.

interface TestEndpoint extends Endpoint {
  tier: 'public' | 'standard' | 'high' | 'admin';
  twin?: string;
}

const Thing = Type.Object({ name: Type.String() });
const IdParams = Type.Object({ id: Type.String() });
const base = { tags: ['things'], tier: 'high' } as const;
const api = {
  createThing: defineEndpoint({
    ...base,
    method: 'POST',
    path: '/things',
    twin: '/old/things',
    operationId: 'createThing',
    summary: 'Create',
    body: Thing,
    response: { 201: SuccessEnvelope(Thing) },
  }),
  listThings: defineEndpoint({
    ...base,
    method: 'GET',
    path: '/things',
    operationId: 'listThings',
    summary: 'List',
    response: { 200: SuccessEnvelope(Type.Array(Thing)) },
  }),
  deleteThing: defineEndpoint({
    ...base,
    method: 'DELETE',
    path: '/things/:id',
    operationId: 'deleteThing',
    summary: 'Delete',
    params: IdParams,
    response: { 204: NoContent },
  }),
  bareThing: defineEndpoint({
    ...base,
    method: 'GET',
    path: '/things/:id',
    operationId: 'bareThing',
    summary: 'Bare',
    params: IdParams,
    response: { 200: Thing },
  }),
};

/** Each entry once with its tier as config, its twin first (pass 0) and deprecated. */
const SURFACE: RouteSurface<TestEndpoint> = {
  envelope: true,
  operations: ({ tier, twin, ...endpoint }) => [
    ...(twin
      ? [{ endpoint: { ...endpoint, path: twin, operationId: `${endpoint.operationId}Old`, deprecated: true }, config: { tier }, pass: 0 }]
      : []),
    { endpoint, config: { tier }, pass: 1 },
  ],
};

let app: HttpApp;
let url: string;
const deleted: string[] = [];

beforeAll(async () => {
  app = await quietApp('routes-test', {
    apiVersion: () => 'v1',
    openapi: { title: 'Routes test', version: '1.0.0', description: 'routes' },
  });
  await app.register(async (scope) => {
    serveRoutes(scope, SURFACE, [
      route(api.createThing, async (request) => ({ name: request.body.name })),
      route(api.listThings, async () => paged([{ name: 'a' }, { name: 'b' }], { page: 2, limit: 2, total: 4, totalPages: 2 })),
      route(api.deleteThing, async (request, reply) => {
        deleted.push(request.params.id);
        return reply.code(204).send(null);
      }),
      route(api.bareThing, async (request) => ({ name: `${request.params.id} ${request.routeOptions.config.tier}` })),
    ]);
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app.close();
});

const call = async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => {
  const answer = await request(`${url}${path}`, {
    method,
    ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  const text = await answer.body.text();
  return { status: answer.statusCode, body: text ? JSON.parse(text) : null };
};

describe('serveRoutes', () => {
  it('wraps returned data in the envelope and answers the entry’s one success status', async () => {
    const answer = await call('POST', '/things', { name: 'x' });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ success: true, data: { name: 'x' }, meta: { requestId: expect.any(String) } });
    expect(answer.body.meta.pagination).toBeUndefined();
  });

  it('answers a page with meta.pagination', async () => {
    const answer = await call('GET', '/things');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(answer.body.meta.pagination).toEqual({ page: 2, limit: 2, total: 4, totalPages: 2 });
  });

  it('leaves a reply the handler sent alone, and a bare answer unwrapped; the config is the entry’s', async () => {
    expect(await call('DELETE', '/things/t1')).toEqual({ status: 204, body: null });
    expect(deleted).toEqual(['t1']);
    expect(await call('GET', '/things/t2')).toEqual({ status: 200, body: { name: 't2 high' } });
  });

  it('serves the surface’s twins, by pass', async () => {
    expect((await call('POST', '/old/things', { name: 'y' })).body.data).toEqual({ name: 'y' });
    const doc = app.swagger() as unknown as { paths: Record<string, Record<string, { operationId: string; deprecated?: boolean }>> };
    expect(Object.keys(doc.paths).filter((p) => p.includes('things'))).toEqual(['/old/things', '/things', '/things/{id}']);
    expect(doc.paths['/old/things']?.post).toMatchObject({ operationId: 'createThingOld', deprecated: true });
  });

  it('refuses a body the entry does not take, with the error envelope', async () => {
    const answer = await call('POST', '/things', { nome: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });
});
