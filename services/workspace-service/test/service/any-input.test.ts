import { connect } from 'node:net';
import { FormData } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorld, type Harness, type Json, PASSWORD, startHarness, uniqueEmail, type World } from '../support/harness.js';
import { callPayments } from '../support/integrations.js';
import { startCustodyA } from '../support/vendors.js';

// Issue 14, one test per finding, through the real services over HTTP: each answer is a 4xx in
// the error envelope with a clear code and message, and nothing was written.
let h: Harness;
let world: World;
let vendorA: Awaited<ReturnType<typeof startCustodyA>>;
let apiKey: string;

beforeAll(async () => {
  vendorA = await startCustodyA();
  h = await startHarness({}, { peers: true });
  world = await buildWorld(h);
  const issued = await h.call('POST', `/api/v1/workspaces/${world.w1.id}/sandbox-credentials`, { token: world.adminW1.token });
  if (issued.status !== 201) throw new Error(`sandbox credentials: ${issued.status} ${issued.text}`);
  apiKey = issued.body.data.apiKey;
});
afterAll(async () => {
  await h?.stop();
  await vendorA?.stop();
});

function expectEnvelope(res: { status: number; body: Json }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({
    success: false,
    data: null,
    error: { code, statusCode: status, message: expect.any(String) },
    meta: { requestId: expect.stringMatching(/^req_/), timestamp: expect.any(String) },
  });
}

const count = async (table: string) => Number((await h.sql.unsafe(`select count(*)::int as n from ${table}`))[0]?.n);

describe('1. NUL and lone surrogates never reach PostgreSQL', () => {
  it('a signup field with NUL or \\ud800: 400 naming the field, no account', async () => {
    const before = await count('workspace.users');
    for (const firstName of ['Ann\u0000', 'Ann\ud800']) {
      const res = await h.call('POST', '/auth/signup', {
        body: { email: uniqueEmail('nul'), password: PASSWORD, firstName, lastName: 'Lee' },
      });
      expectEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.details.errors).toEqual([{ field: 'firstName', reason: expect.stringMatching(/NUL/) }]);
    }
    expect(await count('workspace.users')).toBe(before);
  });

  it('a template name with NUL on the Payments API: 400 naming it, no template', async () => {
    const before = await count('payments.control_templates');
    const res = await callPayments(h, 'POST', '/api/v1/controls/templates', {
      headers: { 'x-api-key': apiKey },
      body: { name: 'T\u0000', controls: [] },
    });
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.errors).toContainEqual({ field: 'name', reason: expect.stringMatching(/NUL/) });
    expect(await count('payments.control_templates')).toBe(before);
  });

  it('a query filter ?customerId=%00: 400 naming it', async () => {
    // (An address filter is refused by its shape first: ChainAddress.)
    const res = await callPayments(h, 'GET', '/api/v1/transactions?customerId=%00', { headers: { 'x-api-key': apiKey } });
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.errors).toEqual([{ field: 'customerId', reason: expect.stringMatching(/NUL/) }]);
  });
});

describe('2. paging numbers are finite and bounded', () => {
  it('limit=1e309 and page=99999999999999999999: 400, on both APIs', async () => {
    for (const query of ['limit=1e309', 'page=99999999999999999999', 'page=1001']) {
      expectEnvelope(await h.call('GET', `/api/v1/users?${query}`, { token: world.superAdmin.token }), 400, 'VALIDATION_ERROR');
      expectEnvelope(
        await callPayments(h, 'GET', `/api/v1/transactions?${query}`, { headers: { 'x-api-key': apiKey } }),
        400,
        'VALIDATION_ERROR',
      );
    }
    expect((await h.call('GET', '/api/v1/users?page=1000', { token: world.superAdmin.token })).status).toBe(200);
  });
});

describe('3. an X-API-Key over 256 characters on a workspace-key route', () => {
  it('is no key: 401 UNAUTHORIZED', async () => {
    const res = await h.call('GET', `/api/v1/workspaces/${world.w1.id}/transactions/00000000-0000-4000-8000-000000000000`, {
      headers: { 'x-api-key': `hf_test_${'a'.repeat(300)}` },
    });
    expectEnvelope(res, 401, 'UNAUTHORIZED');
  });
});

describe('4. a malformed multipart body on an avatar upload', () => {
  it('a truncated part or a missing boundary: 400, no avatar stored', async () => {
    const url = '/api/v1/users/me/avatar';
    const truncated = await h.call('POST', url, {
      token: world.clientW1.token,
      headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG',
    });
    expectEnvelope(truncated, 400, 'VALIDATION_ERROR');
    expect(truncated.body.error.details.errors[0].field).toBe('body');
    const noBoundary = await h.call('POST', url, {
      token: world.clientW1.token,
      headers: { 'content-type': 'multipart/form-data' },
      body: 'garbage',
    });
    expect([400, 415]).toContain(noBoundary.status);
    expect(noBoundary.body.success).toBe(false);
    const twoParts = new FormData();
    twoParts.append('file', new Blob([Buffer.from('a')], { type: 'image/png' }), 'a.png');
    twoParts.append('file', new Blob([Buffer.from('b')], { type: 'image/png' }), 'b.png');
    const two = await h.call('POST', url, { token: world.clientW1.token, form: twoParts });
    expect(two.status).toBeLessThan(500);
    expect(two.body.success).toBe(false);
    const [user] = await h.sql`select avatar_path from workspace.users where id = ${world.clientW1.id}`;
    expect(user?.avatar_path).toBeNull();
  });
});

describe('5. a second default wallet provider config', () => {
  it('takes the default from the first in one transaction: 201, exactly one default', async () => {
    const create = (providerName: string) =>
      h.call('POST', '/api/v1/wallet-provider-configs', {
        token: world.adminW1.token,
        body: {
          workspaceId: world.w1.id,
          providerType: 'CUSTODY_A',
          providerName,
          config: vendorA.config,
          walletSetId: vendorA.walletSetId,
          isDefault: true,
        },
      });
    const first = await create('First default');
    expect(first.status, first.text).toBe(201);
    const second = await create('Second default');
    expect(second.status, second.text).toBe(201);
    const defaults = await h.sql`
      select id from workspace.wallet_provider_configs where workspace_id = ${world.w1.id} and is_default`;
    expect(defaults.map((r) => r.id)).toEqual([second.body.data.id]);
  });
});

describe('6. framework errors stay in the envelope', () => {
  it('bad percent-encoding, a path parameter over 100 characters, on both APIs', async () => {
    expectEnvelope(await callPayments(h, 'GET', '/api/v1/transactions/%ZZ', { headers: { 'x-api-key': apiKey } }), 400, 'VALIDATION_ERROR');
    expectEnvelope(await h.call('GET', '/api/v1/users/%ZZ', { token: world.superAdmin.token }), 400, 'VALIDATION_ERROR');
    expectEnvelope(await h.call('GET', `/api/v1/users/${'a'.repeat(101)}`, { token: world.superAdmin.token }), 414, 'URI_TOO_LONG');
  });

  it('a malformed request line: 400 in the envelope', async () => {
    const { port } = new URL(h.url);
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write('GET / HTTP/1.1 EXTRA\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });
});

describe('7. error answers are bounded', () => {
  it('10,000 bad items: 20 listed, details.more counts the rest, a few kilobytes', async () => {
    const res = await h.call('POST', `/api/v1/workspaces/${world.w1.id}/webhooks`, {
      token: world.adminW1.token,
      body: { url: 'https://example.test/hook', eventTypes: Array.from({ length: 10_000 }, () => 42) },
    });
    expectEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.errors).toHaveLength(20);
    expect(res.body.error.details.more).toBeGreaterThan(0);
    expect(res.text.length).toBeLessThan(16_384);
  });
});
