import { createHmac } from 'node:crypto';
import { startReceiver } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { imageForm } from '../support/fixtures.js';
import { type Harness, SUPER_EMAIL, SUPER_PASSWORD, setWorkspaceStatus, startHarness } from '../support/harness.js';
import { callPayments, paymentsToken } from '../support/integrations.js';

// The steps of docs/workspace-getting-started.md, in order, as a new administrator runs them,
// against a real payments-service and webhook-dispatcher.
let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  [h, receiver] = await Promise.all([startHarness({}, { peers: true }), startReceiver()]);
});
afterAll(async () => {
  await h?.stop();
  await receiver?.close();
});

it('takes a new administrator from sign-up to a workspace with a team, sandbox credentials, an OAuth client, a webhook and an audit trail', async () => {
  // 1. Sign up.
  const signup = await h.call('POST', '/auth/signup', {
    body: {
      email: 'ada@acme.example',
      password: 'Correct-Horse-9',
      firstName: 'Ada',
      lastName: 'Lovelace',
      companyName: 'Acme',
      intendedUseCase: 'Escrowed marketplace payouts',
    },
  });
  expect(signup.status).toBe(201);
  expect(signup.body.data.user).toMatchObject({ role: 'ADMIN', workspaceId: null, emailVerified: false });

  // 2. Verify the address (the code is in the answer outside production).
  const verified = await h.call('POST', '/auth/verify-code', {
    body: { email: 'ada@acme.example', code: signup.body.data.verificationCode },
  });
  expect(verified.status).toBe(200);

  // 3. Log in (any case), refresh once.
  const login = await h.call('POST', '/identity/login', { body: { email: 'Ada@Acme.example', password: 'Correct-Horse-9' } });
  expect(login.status).toBe(200);
  const refreshed = await h.call('POST', '/identity/refresh', { body: { refreshToken: login.body.data.refreshToken } });
  expect(refreshed.status).toBe(200);
  const token = refreshed.body.data.accessToken as string;
  const refreshToken = refreshed.body.data.refreshToken as string;

  // 4. Create the workspace: pending, slug from the name, Ada its first member.
  const created = await h.call('POST', '/api/v1/workspaces', {
    token,
    body: { name: 'Acme Payments', email: 'ops@acme.example', webhookUrl: 'https://acme.example/holdfast' },
  });
  expect(created.status).toBe(201);
  expect(created.body.data).toMatchObject({ slug: 'acme-payments', status: 'pending' });
  const workspace = created.body.data.id as string;
  expect((await h.call('GET', '/api/v1/workspaces/me', { token })).body.data.id).toBe(workspace);
  expect((await h.call('POST', '/api/v1/workspaces', { token, body: { name: 'Second', email: 'x@acme.example' } })).status).toBe(409);

  // 5. Avatar, billing contact, wallet settings.
  const avatar = await h.call('POST', `/api/v1/workspaces/${workspace}/avatar`, { token, form: imageForm() });
  expect(avatar.body.data.avatarPath).toMatch(/^\/avatars\//);
  const billing = await h.call('PATCH', `/api/v1/workspaces/${workspace}/billing`, {
    token,
    body: { billingEmail: 'ap@acme.example', companyName: 'Acme Ltd' },
  });
  expect(billing.status).toBe(200);
  const wallet = await h.call('PATCH', `/api/v1/workspaces/${workspace}/wallet-settings`, {
    token,
    body: { walletProvider: 'CUSTODY_A', enabledNetworks: ['base-sepolia'], defaultNetwork: 'base-sepolia', defaultCurrency: 'USDC' },
  });
  expect(wallet.status).toBe(200);

  // 6. Invite a teammate, who can log in at once.
  const invited = await h.call('POST', '/api/v1/users', {
    token,
    body: { email: 'grace@acme.example', password: 'Another-Strong-7', role: 'client', firstName: 'Grace' },
  });
  expect(invited.body.data).toMatchObject({ role: 'CLIENT', workspaceId: workspace });
  expect((await h.login('grace@acme.example', 'Another-Strong-7')).user.workspaceId).toBe(workspace);

  // 7. Sandbox credentials: none while the workspace is pending; once a Holdfast operator approved
  // it, a v1 API key and a v2 OAuth client, secrets shown once, both working.
  const early = await h.call('POST', `/api/v1/workspaces/${workspace}/sandbox-credentials`, { token });
  expect(early.status).toBe(403);
  expect(early.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'workspace_not_active', workspaceStatus: 'pending' } });
  const operator = await h.login(SUPER_EMAIL, SUPER_PASSWORD);
  expect((await setWorkspaceStatus(h, operator.accessToken, workspace, 'active')).status).toBe('active');
  const issued = await h.call('POST', `/api/v1/workspaces/${workspace}/sandbox-credentials`, { token });
  expect(issued.status).toBe(201);
  const sandbox = issued.body.data;
  expect(sandbox.apiKey).toMatch(/^hf_test_/);
  const listed = await h.call('GET', `/api/v1/workspaces/${workspace}/sandbox-credentials`, { token });
  expect(listed.body.data).toHaveLength(1);
  expect(listed.text).not.toContain(sandbox.apiKey);
  const platform = await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: { 'x-api-key': sandbox.apiKey } });
  expect(platform.body).toMatchObject({ id: sandbox.platformId, workspaceId: workspace, sandbox: true });
  expect(await paymentsToken(h, sandbox.oauthClient)).toMatch(/^hf_at_/);

  // 8. An OAuth client of its own for the backend, `resource:action` scopes, its token works on v2.
  expect((await h.call('GET', `/api/v1/workspaces/${workspace}/oauth/scopes`, { token })).status).toBe(200);
  const client = await h.call('POST', `/api/v1/workspaces/${workspace}/oauth/clients`, {
    token,
    body: { name: 'Payouts backend', scopes: ['transactions:read', 'transactions:move'] },
  });
  expect(client.status).toBe(201);
  expect(client.body.data).toMatchObject({ scopes: ['transactions:read', 'transactions:move'], platformId: sandbox.platformId });
  const backendToken = await paymentsToken(h, client.body.data);
  const me = await callPayments(h, 'GET', '/api/v2/auth/platform/me', { headers: { authorization: `Bearer ${backendToken}` } });
  expect(me.body.id).toBe(sandbox.platformId);

  // 9. A webhook (here to a receiver on loopback, allowed in local), and a signed test delivery.
  expect((await h.call('GET', `/api/v1/workspaces/${workspace}/webhooks/events/types`, { token })).status).toBe(200);
  const webhook = await h.call('POST', `/api/v1/workspaces/${workspace}/webhooks`, {
    token,
    body: { url: receiver.url('/holdfast/webhooks'), eventTypes: ['transaction.created', 'transaction.completed'] },
  });
  expect(webhook.status).toBe(201);
  const { id: webhookId, secret } = webhook.body.data;
  const tested = await h.call('POST', `/api/v1/workspaces/${workspace}/webhooks/${webhookId}/test`, { token });
  expect(tested.body.data).toMatchObject({ success: true, statusCode: 200 });
  const [delivery] = receiver.received('/holdfast/webhooks');
  expect(delivery?.headers['x-webhook-signature']).toBe(createHmac('sha256', secret).update(delivery!.body).digest('hex'));
  const logs = await h.call('GET', `/api/v1/workspaces/${workspace}/webhooks/${webhookId}/delivery-logs?limit=5`, { token });
  expect(logs.body.data.total).toBe(1);

  // 10. The audit trail has it all, secrets left out; the CSV export too.
  const trail = await h.call('GET', `/api/v1/workspaces/${workspace}/audit-logs?limit=20`, { token });
  expect(trail.body.data.map((e: { action: string }) => e.action)).toEqual(
    expect.arrayContaining([
      'workspace.create',
      'workspace.avatar_upload',
      'workspace.billing_update',
      'workspace.wallet_settings_update',
      'user.create',
      'sandbox_credential.issue',
      'oauth_client.create',
      'webhook.create',
      'webhook.test',
    ]),
  );
  for (const value of [sandbox.apiKey, sandbox.oauthClient.clientSecret, client.body.data.clientSecret, secret]) {
    expect(trail.text).not.toContain(value);
  }
  const csv = await h.call('GET', '/api/v1/audit-logs/export?format=csv', { token });
  expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');

  // 11. Log out: the refresh token stops working.
  expect((await h.call('POST', '/identity/logout', { body: { refreshToken } })).status).toBe(200);
  expect((await h.call('POST', '/identity/refresh', { body: { refreshToken } })).status).toBe(401);
});
