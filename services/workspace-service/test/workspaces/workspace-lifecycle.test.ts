import { until } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { auditEntries, type Json, PASSWORD, setWorkspaceStatus, startInstance, uniqueEmail, worldPerFile } from '../support/harness.js';
import { bearer, callPayments, key, newTenant, paymentsToken } from '../support/integrations.js';

// Issue 28 item 3, "a tenant earns money-moving credentials", against a real payments-service and
// webhook-dispatcher: a self-signed-up (pending) workspace gets no credentials until an operator
// approves it; a suspended or inactive workspace's members are refused and its payments platforms
// deactivated (API key, OAuth tokens, token minting) within seconds; reactivation issues anew.

const { h, world } = worldPerFile({}, { peers: true });

const address = () => `0x${crypto.randomUUID().replaceAll('-', '')}${crypto.randomUUID().replaceAll('-', '').slice(0, 8)}`;

const platformsOf = (workspaceId: string) =>
  h.sql<{ id: string; is_active: boolean }[]>`select id, is_active from payments.platforms where workspace_id = ${workspaceId} order by id`;
const mappingsOf = (workspaceId: string) =>
  h.sql<
    { platform_id: string; status: string }[]
  >`select platform_id, status from workspace.platform_mappings where workspace_id = ${workspaceId}`;

/** A stranger signs up, verifies (the code is in the answer outside production), logs in and creates a workspace. */
async function selfSignedUp() {
  const email = uniqueEmail('stranger');
  const signup = await h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Mallory', lastName: 'M' } });
  expect(signup.status).toBe(201);
  expect((await h.call('POST', '/auth/verify-code', { body: { email, code: signup.body.data.verificationCode } })).status).toBe(200);
  const { accessToken: token } = await h.login(email);
  const created = await h.call('POST', '/api/v1/workspaces', { token, body: { name: `Mallory ${Date.now()}`, email } });
  expect(created.status).toBe(201);
  expect(created.body.data.status).toBe('pending');
  return { token, workspaceId: created.body.data.id as string, base: `/api/v1/workspaces/${created.body.data.id}` };
}

describe('a pending workspace (not approved yet)', () => {
  it('is refused sandbox credentials and OAuth clients (403, nothing minted) until an operator approves it', async () => {
    const s = await selfSignedUp();
    const refused = await h.call('POST', `${s.base}/sandbox-credentials`, { token: s.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/pending.*approves/),
      details: { reason: 'workspace_not_active', workspaceStatus: 'pending' },
    });
    // A SUPER_ADMIN is held to the same rule: approve first.
    const byOperator = await h.call('POST', `${s.base}/sandbox-credentials`, { token: world.superAdmin.token });
    expect(byOperator.status).toBe(403);
    const client = await h.call('POST', `${s.base}/oauth/clients`, {
      token: s.token,
      body: { name: 'backend', scopes: ['transactions:read'] },
    });
    expect(client.status).toBe(403);
    expect(client.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'workspace_not_active' } });
    // Nothing was minted in payments, nothing journalled or mapped here.
    expect(await platformsOf(s.workspaceId)).toEqual([]);
    expect(await mappingsOf(s.workspaceId)).toEqual([]);
    expect((await h.sql`select count(*)::int as n from workspace.sandbox_issuances where workspace_id = ${s.workspaceId}`)[0]?.n).toBe(0);
    const [entry] = await auditEntries(h, { action: 'sandbox_credential.issue', resourceId: s.workspaceId });
    expect(entry).toMatchObject({ success: false, metadata: expect.objectContaining({ statusCode: 403, errorCode: 'FORBIDDEN' }) });
    // Its members still set it up meanwhile.
    expect((await h.call('GET', '/api/v1/workspaces/me', { token: s.token })).status).toBe(200);

    // Only an operator approves it; then the same request is served.
    const selfApproval = await h.call('PUT', s.base, { token: s.token, body: { status: 'active' } });
    expect(selfApproval.status).toBe(403);
    expect((await setWorkspaceStatus(h, world.superAdmin.token, s.workspaceId, 'active')).status).toBe('active');
    const issued = await h.call('POST', `${s.base}/sandbox-credentials`, { token: s.token });
    expect(issued.status).toBe(201);
    expect((await platformsOf(s.workspaceId)).map((p) => p.id)).toEqual([issued.body.data.platformId]);
  });
});

/** An approved tenant with sandbox credentials: its API key, an OAuth client and a v2 token of it. */
async function credentialedTenant() {
  const t = await newTenant(h, world);
  const res = await h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token });
  expect(res.status).toBe(201);
  const sandbox: Json = res.body.data;
  const token = await paymentsToken(h, sandbox.oauthClient);
  const created = await callPayments(h, 'POST', '/api/v1/transactions', {
    headers: key(sandbox.apiKey),
    body: { fromAddress: address(), toAddress: address(), amount: 1 },
  });
  expect(created.status).toBe(201);
  return { ...t, sandbox, token };
}

/** What the tenant's payments credentials get now: the key's read, its create, the token's read, a new token. */
async function paymentsAnswers(t: Awaited<ReturnType<typeof credentialedTenant>>) {
  const mint = await callPayments(h, 'POST', '/api/v2/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: t.sandbox.oauthClient.clientId,
      client_secret: t.sandbox.oauthClient.clientSecret,
    },
  });
  return {
    key: (await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(t.sandbox.apiKey) })).status,
    create: (
      await callPayments(h, 'POST', '/api/v1/transactions', {
        headers: key(t.sandbox.apiKey),
        body: { fromAddress: address(), toAddress: address(), amount: 1 },
      })
    ).status,
    token: (await callPayments(h, 'GET', '/api/v2/auth/platform/me', { headers: bearer(t.token) })).status,
    mint: mint.status,
  };
}

const REFUSED = { key: 401, create: 401, token: 401, mint: 401 };

describe.each(['suspended', 'inactive'])('a %s workspace', (status) => {
  it("refuses its members' tokens and deactivates its payments platforms within seconds", async () => {
    const t = await credentialedTenant();
    // Another instance of the Workspace API has the ADMIN in its principal cache.
    const other = await startInstance(h);
    try {
      expect((await other.call('GET', '/api/v1/workspaces/me', { token: t.admin.token })).status).toBe(200);
      expect((await h.call('GET', '/api/v1/workspaces/me', { token: t.admin.token })).status).toBe(200);
      const transactionsBefore = (
        await h.sql`select count(*)::int as n from payments.transactions where platform_id = ${t.sandbox.platformId}`
      )[0]?.n;

      const changed = await h.call('PUT', t.base, { token: world.superAdmin.token, body: { status } });
      expect(changed.status).toBe(200);
      expect(changed.body.data.status).toBe(status);

      // The Workspace API: at once on this instance, within seconds on the other.
      const me = await h.call('GET', '/api/v1/workspaces/me', { token: t.admin.token });
      expect(me.status).toBe(403);
      expect(me.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'workspace_closed', workspaceStatus: status } });
      await until(
        'the other instance refuses the ADMIN',
        async () => (await other.call('GET', '/api/v1/workspaces/me', { token: t.admin.token })).status === 403,
      );
      expect((await h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token })).status).toBe(403);
      expect(
        (await h.call('POST', `${t.base}/oauth/clients`, { token: t.admin.token, body: { name: 'x', scopes: ['transactions:read'] } }))
          .status,
      ).toBe(403);
      expect((await h.call('GET', `${t.base}/sandbox-credentials`, { token: t.client.token })).status).toBe(403);
      // Logging in again does not get around it: the new token is refused the same way.
      const again = await h.login(t.admin.email);
      expect((await h.call('GET', '/api/v1/workspaces/me', { token: again.accessToken })).status).toBe(403);
      // The operator still administers it.
      expect((await h.call('GET', t.base, { token: world.superAdmin.token })).status).toBe(200);

      // Payments: deactivated in its database when the answer came; its instances drop their caches within a second.
      expect(await platformsOf(t.workspace.id)).toEqual([{ id: t.sandbox.platformId, is_active: false }]);
      await until('payments refuses every credential', async () => {
        const answers = await paymentsAnswers(t);
        return JSON.stringify(answers) === JSON.stringify(REFUSED) ? answers : undefined;
      });
      expect((await h.sql`select count(*)::int as n from payments.transactions where platform_id = ${t.sandbox.platformId}`)[0]?.n).toBe(
        transactionsBefore,
      );
      expect(await mappingsOf(t.workspace.id)).toEqual([{ platform_id: t.sandbox.platformId, status: 'revoked' }]);
      const [entry] = await auditEntries(h, { action: 'workspace.update', resourceId: t.workspace.id });
      expect(entry).toMatchObject({
        success: true,
        changes: { status: { from: 'active', to: status } },
        metadata: expect.objectContaining({ revokedPlatformIds: [t.sandbox.platformId] }),
      });
      await until(
        'the deactivation task done',
        async () =>
          (
            await h.sql`select status from workspace.remote_tasks
              where workspace_id = ${t.workspace.id} and kind = 'payments.deactivate-workspace-platforms'`
          )[0]?.status === 'done',
      );
    } finally {
      await other.stop();
    }
  });
});

describe('a suspended workspace reactivated', () => {
  it('lets its members back in; its old credentials stay dead and new ones are issued', async () => {
    const t = await credentialedTenant();
    await setWorkspaceStatus(h, world.superAdmin.token, t.workspace.id, 'suspended');
    await until('payments refuses the old key', async () => (await paymentsAnswers(t)).key === 401);

    await setWorkspaceStatus(h, world.superAdmin.token, t.workspace.id, 'active');
    expect((await h.call('GET', '/api/v1/workspaces/me', { token: t.admin.token })).status).toBe(200);
    expect(await paymentsAnswers(t)).toEqual(REFUSED);
    const list = await h.call('GET', `${t.base}/sandbox-credentials`, { token: t.admin.token });
    expect(list.body.data.map((c: Json) => c.status)).toEqual(['revoked']);
    const fresh = await h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token });
    expect(fresh.status).toBe(201);
    expect((await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(fresh.body.data.apiKey) })).status).toBe(200);
  });
});

describe('a workspace suspended while its sandbox credentials are being issued', () => {
  it('keeps none of them: the platform payments minted is deactivated', async () => {
    const t = await newTenant(h, world);
    // The suspension waits for the issuance's first transaction (the workspace row's lock) and lands
    // while payments mints; either way no active platform may be left.
    const [issued] = await Promise.all([
      h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token }),
      h.call('PUT', t.base, { token: world.superAdmin.token, body: { status: 'suspended' } }),
    ]);
    expect([201, 403]).toContain(issued.status);
    await until('no active platform', async () => (await platformsOf(t.workspace.id)).every((p) => !p.is_active));
    expect((await mappingsOf(t.workspace.id)).every((m) => m.status === 'revoked')).toBe(true);
  });
});
