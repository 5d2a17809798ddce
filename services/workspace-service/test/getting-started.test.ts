import { afterAll, beforeAll, expect, it } from 'vitest';
import { imageForm } from './support/fixtures.js';
import { type Harness, startHarness } from './support/harness.js';

// The steps of docs/workspace-getting-started.md, in order, as a new administrator runs them.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());

it('takes a new administrator from sign-up to a workspace with a team, settings and an audit trail', async () => {
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

  // 7. The audit trail has it all; the CSV export too.
  const trail = await h.call('GET', `/api/v1/workspaces/${workspace}/audit-logs?limit=10`, { token });
  expect(trail.body.data.map((e: { action: string }) => e.action)).toEqual(
    expect.arrayContaining([
      'workspace.create',
      'workspace.avatar_upload',
      'workspace.billing_update',
      'workspace.wallet_settings_update',
      'user.create',
    ]),
  );
  const csv = await h.call('GET', '/api/v1/audit-logs/export?format=csv', { token });
  expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');

  // The catalogs integrations will use.
  expect((await h.call('GET', `/api/v1/workspaces/${workspace}/oauth/scopes`, { token })).status).toBe(200);
  expect((await h.call('GET', `/api/v1/workspaces/${workspace}/webhooks/events/types`, { token })).status).toBe(200);

  // 8. Log out: the refresh token stops working.
  expect((await h.call('POST', '/identity/logout', { body: { refreshToken } })).status).toBe(200);
  expect((await h.call('POST', '/identity/refresh', { body: { refreshToken } })).status).toBe(401);
});
