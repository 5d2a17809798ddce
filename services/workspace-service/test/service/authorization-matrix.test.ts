import { WORKSPACE_OAUTH_SCOPES, workspaceEndpoints } from '@holdfast/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, World } from '../support/harness.js';
import { principalTokens, startRouteContext, stopRouteContext } from '../support/route-context.js';
import { BAD_INPUT, type Context, NO_INPUT, PRINCIPALS, type Principal, ROUTES, type RouteCase } from '../support/route-table.js';

// One service, one world, tokens minted once; every route against every principal from one table.
let h: Harness;
let world: World;
let ctx: Context;
let tokens: Record<Principal, string | undefined>;

beforeAll(async () => {
  ctx = await startRouteContext();
  ({ h, world } = ctx);
  tokens = principalTokens(ctx);
});
afterAll(async () => stopRouteContext(ctx));

async function run(route: RouteCase, principal: Principal, versionedPrefix: '/api/v1' | '/api' = '/api/v1') {
  const prepared = await route.prepare(ctx, principal);
  const token = prepared.tokens?.[principal] ?? tokens[principal];
  const path = versionedPrefix === '/api' ? prepared.path.replace(/^\/api\/v1\//, '/api/') : prepared.path;
  const answer = await h.call(route.method, path, { token, body: prepared.body, form: prepared.form });
  if (answer.status < 300) await prepared.after?.(token);
  return answer;
}

describe.each(ROUTES)('$method $route', (route) => {
  it.each(PRINCIPALS.map((p) => [p, route.expect[p]] as const))('%s -> %i', async (principal, status) => {
    const answer = await run(route, principal);
    expect(answer.status, answer.text).toBe(status);
    if (status >= 400) {
      expect(answer.body).toMatchObject({ success: false, data: null, error: { statusCode: status } });
      if (status === 401) {
        expect(answer.body.error.code).toBe(route.codes?.[principal] ?? (principal === 'expired' ? 'TOKEN_EXPIRED' : 'UNAUTHORIZED'));
      }
      if (status === 403) expect(answer.body.error.code).toBe('FORBIDDEN');
    }
  });
});

// A credential a member mints can do no more than the member (issue 13 item 4,
// docs/api/scopes.md#who-may-grant-a-scope): every offered OAuth scope against every role of W1.
describe('OAuth client scopes a member may grant', () => {
  const grants = { client: ['CLIENT'], admin: ['CLIENT', 'ADMIN'], superAdmin: ['CLIENT', 'ADMIN'] } as const;
  const cases = WORKSPACE_OAUTH_SCOPES.flatMap((s) =>
    (Object.keys(grants) as (keyof typeof grants)[]).map(
      (principal) => [s.scope, principal, (grants[principal] as readonly string[]).includes(s.grantableBy) ? 201 : 403] as const,
    ),
  );
  it.each(cases)('%s by %s -> %i', async (scope, principal, status) => {
    const name = `grant ${scope} ${principal} ${Math.random().toString(36).slice(2, 8)}`;
    const answer = await h.call('POST', `/api/v1/workspaces/${world.w1.id}/oauth/clients`, {
      token: tokens[principal],
      body: { name, scopes: [scope] },
    });
    expect(answer.status, answer.text).toBe(status);
    const [row] = await h.sql<{ n: number }[]>`select count(*)::int as n from payments.oauth_clients where name = ${name}`;
    expect(row?.n).toBe(status === 201 ? 1 : 0);
    if (status === 403) expect(answer.body.error).toMatchObject({ code: 'FORBIDDEN', details: { scopes: [scope] } });
  });
});

describe('the deprecated unversioned copies answer like /api/v1, with the deprecation headers', () => {
  const versioned = ROUTES.filter((r) => r.route.startsWith('/api/v1/'));
  it.each(
    versioned.flatMap((r) => (['anonymous', 'superAdmin', 'otherTenant'] as const).map((p) => [`${r.method} ${r.route}`, p, r] as const)),
  )('%s as %s', async (_name, principal, route) => {
    const answer = await run(route, principal, '/api');
    expect(answer.status, answer.text).toBe(route.expect[principal]);
    expect(answer.headers).toMatchObject({
      deprecation: 'true',
      sunset: 'Mon, 01 Jun 2026 00:00:00 GMT',
      link: '</api/v1>; rel="successor-version"',
    });
  });
});

describe('bad input gets a 4xx and changes nothing', () => {
  let n = 0;
  it.each(Object.entries(BAD_INPUT))('%s', async (name, bad) => {
    n += 1;
    const requestId = `bad-input-${n}`;
    const [method] = name.split(' ');
    const answer = await h.call(method!, bad.path(ctx), {
      token: tokens[bad.as ?? 'superAdmin'],
      body: bad.body,
      form: bad.form?.(),
      headers: { ...(typeof bad.headers === 'function' ? bad.headers(ctx) : bad.headers), 'x-request-id': requestId },
    });
    expect(answer.status, answer.text).toBe(bad.status ?? 400);
    expect(answer.body.error.code).toBe(bad.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'VALIDATION_ERROR');
    const written = await h.sql`select success from workspace.audit_logs where metadata->>'requestId' = ${requestId}`;
    expect(written.every((e) => e.success === false)).toBe(true);
  });
});

describe('the table', () => {
  it('has bad input for every route that takes input', () => {
    const names = ROUTES.map((r) => `${r.method} ${r.route}`);
    expect(new Set([...Object.keys(BAD_INPUT), ...NO_INPUT])).toEqual(new Set(names));
  });

  it('has one case for every endpoint of the catalogue', () => {
    const catalogue = Object.values(workspaceEndpoints).filter((entry) => 'operationId' in entry);
    expect(ROUTES.map((r) => r.endpoint.operationId).sort()).toEqual(catalogue.map((e) => e.operationId).sort());
  });

  it('covers every route of the OpenAPI description, and nothing else', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { deprecated?: boolean }>> };
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (path.startsWith('/health') || path === '/metrics') continue;
      for (const [method, operation] of Object.entries(operations)) {
        if (path.startsWith('/api/') && !path.startsWith('/api/v1/')) {
          expect(operation.deprecated, `${method} ${path}`).toBe(true);
          expect(doc.paths[path.replace(/^\/api\//, '/api/v1/')]?.[method], `${method} ${path} has a /api/v1 twin`).toBeDefined();
          continue;
        }
        documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.route}`))).toEqual(documented);
  });
});
