import { randomUUID } from 'node:crypto';
import { PAYMENTS_V2_OPERATIONS } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, createClient, key, startPaymentsEnv, tokenFor } from '../support/harness.js';

// Every one of the 38 v2 operations of the contract (the spec's 36 and the relayer's two) is served, refuses a request without a
// credential and an API key (v2 takes OAuth tokens only), and a token without the operation's scope.
// Generated from PAYMENTS_V2_OPERATIONS, so an operation added to the contract is checked here.

let weakToken = '';

const e = fileFixture(() => startPaymentsEnv());
beforeAll(async () => {
  // A client whose only scope no v2 operation asks for on its own.
  weakToken = await tokenFor(e.svc.url, await createClient(e.svc.url, e.admin, { name: 'weak', scopes: ['read:customers'] }));
});

const fill = (path: string) => path.replace(/\{[A-Za-z]+\}/g, () => randomUUID());

describe('Payments API v2: the 38 operations', () => {
  it('lists 38 operations', () => {
    expect(PAYMENTS_V2_OPERATIONS).toHaveLength(38);
  });

  const guarded = PAYMENTS_V2_OPERATIONS.filter((o) => typeof o.auth === 'object');
  for (const op of guarded) {
    const name = `${op.method} ${op.path}`;
    it(`${name}: no credential -> 401, API key -> 401`, async () => {
      const path = fill(op.path);
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
      const none = await call(e.svc.url, op.method, path, { body });
      expect(none.status, JSON.stringify(none.body)).toBe(401);
      expect(none.body.error.code).toBe('UNAUTHORIZED');
      const withKey = await call(e.svc.url, op.method, path, { headers: key(e.admin), body });
      expect(withKey.status).toBe(401);
      expect(withKey.body.error.message).toMatch(/bearer|OAuth/i);
    });

    const needs = op.auth as { scopes?: string[]; anyScope?: string[] };
    if ((needs.scopes?.length ?? 0) > 0 || (needs.anyScope?.length ?? 0) > 0) {
      it(`${name}: a token without its scope -> 403 INSUFFICIENT_SCOPE`, async () => {
        const path = fill(op.path);
        const res = await call(e.svc.url, op.method, path, {
          headers: bearer(weakToken),
          body: op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
        });
        expect(res.status, JSON.stringify(res.body)).toBe(403);
        expect(res.body.error.code).toBe('INSUFFICIENT_SCOPE');
      });
    }
  }

  it('every operation is in the OpenAPI description', async () => {
    const doc = await call(e.svc.url, 'GET', '/openapi.json');
    const missing = PAYMENTS_V2_OPERATIONS.filter((o) => !doc.body.paths?.[o.path]?.[o.method.toLowerCase()]).map(
      (o) => `${o.method} ${o.path}`,
    );
    expect(missing).toEqual([]);
  });
});
