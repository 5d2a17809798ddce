import { CustomerRecord } from '@holdfast/contracts';
import { fileFixture, startAnvil } from '@holdfast/test-fixtures';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { anvilClients } from '../support/chain.js';
import { customerJwt, linkWallet, registerCustomer } from '../support/customers.js';
import {
  auditEntries,
  buildWorld,
  createWorkspace,
  expiredTokenFor,
  type Json,
  PASSWORD,
  sessionIdOf,
  startHarness,
  uniqueEmail,
} from '../support/harness.js';

// Customers over HTTP: administration (workspace and global routes), self-service sessions with
// the workspace-bound customer JWT, and wallet linking with a real viem-signed SIWE message.
const anvil = fileFixture(() => startAnvil());
const h = fileFixture(() => startHarness({ CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}` }));
const world = fileFixture(() => buildWorld(h));

const w1Customers = () => `/api/v1/workspaces/${world.w1.id}/customers`;
const auth = (ref: string, what: string) => `/api/v1/workspaces/${ref}/customers/auth/${what}`;

async function adminCreates(body: Record<string, unknown>, token = world.adminW1.token) {
  return h.call('POST', w1Customers(), { token, body: { firstName: 'Ada', lastName: 'Lovelace', ...body } });
}

describe('workspace customers (administration)', () => {
  it('creates a customer of the workspace: 201, the record, an audit entry; no password, so no login', async () => {
    const email = uniqueEmail('Ada.Customer');
    // The profile of the customer the API documents as its example.
    const [documented] = CustomerRecord.examples as CustomerRecord[];
    const { phoneNumber, dateOfBirth, address, city, postalCode } = documented!;
    const profile = { phoneNumber, dateOfBirth, address, city, postalCode };
    const res = await adminCreates({
      email: email.toUpperCase(),
      ...profile,
      country: documented!.country!.toLowerCase(),
      externalId: 'cus_1',
      metadata: { tier: 'gold' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      workspaceId: world.w1.id,
      externalId: 'cus_1',
      email: email.toLowerCase(),
      firstName: 'Ada',
      lastName: 'Lovelace',
      ...profile,
      state: null,
      country: 'DE',
      status: 'active',
      walletAddress: null,
      walletLinkedAt: null,
      emailVerified: false,
      hasPassword: false,
      metadata: { tier: 'gold' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const [entry] = await auditEntries(h, { action: 'customer.create', resourceId: res.body.data.id });
    expect(entry).toMatchObject({ success: true, user_id: world.adminW1.id, workspace_id: world.w1.id });
    // Created by an administrator: no password, so the customer cannot log in.
    const login = await h.call('POST', auth(world.w1.slug, 'login'), { body: { email, password: PASSWORD } });
    expect(login.status).toBe(401);
    expect(login.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('refuses a taken e-mail (any case) or externalId in the workspace with 409; other workspaces may reuse them', async () => {
    const email = uniqueEmail('dup');
    expect((await adminCreates({ email, externalId: 'dup-ext' })).status).toBe(201);
    const again = await adminCreates({ email: email.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'email' } });
    const ext = await adminCreates({ email: uniqueEmail('other'), externalId: 'dup-ext' });
    expect(ext.status).toBe(409);
    expect(ext.body.error.details).toEqual({ field: 'externalId' });
    const elsewhere = await h.call('POST', `/api/v1/workspaces/${world.w2.id}/customers`, {
      token: world.adminW2.token,
      body: { email, firstName: 'Ada', lastName: 'Twin', externalId: 'dup-ext' },
    });
    expect(elsewhere.status).toBe(201);
  });

  it('refuses bad input with 400 naming every field, and stores nothing', async () => {
    const email = uniqueEmail('bad');
    const res = await adminCreates({ email, country: 'Germany', dateOfBirth: '2999-01-01', phoneNumber: 'call me', shoeSize: 44 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(expect.arrayContaining(['country', 'phoneNumber', 'shoeSize']));
    const future = await adminCreates({ email, dateOfBirth: '2999-01-01' });
    expect(future.body.error.details.errors).toEqual([{ field: 'dateOfBirth', reason: 'must not be in the future' }]);
    expect(await h.sql`select 1 from workspace.customers where email = ${email}`).toHaveLength(0);
  });

  it('lists with pagination, status and search on name or e-mail', async () => {
    const marker = `zed${Date.now().toString(36)}`;
    await adminCreates({ email: uniqueEmail(`${marker}a`), firstName: 'Zelda', lastName: 'One' });
    await adminCreates({ email: uniqueEmail('plain'), firstName: marker, lastName: 'Two' });
    await adminCreates({ email: uniqueEmail('susp'), firstName: marker, lastName: 'Three', status: 'suspended' });
    const found = await h.call('GET', `${w1Customers()}?search=${marker}&limit=2`, { token: world.adminW1.token });
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(2);
    expect(found.body.meta.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const fullName = await h.call('GET', `${w1Customers()}?search=${encodeURIComponent(`${marker} Two`)}`, { token: world.adminW1.token });
    expect(fullName.body.data.map((c: Json) => c.lastName)).toEqual(['Two']);
    const suspended = await h.call('GET', `${w1Customers()}?search=${marker}&status=suspended`, { token: world.superAdmin.token });
    expect(suspended.body.data.map((c: Json) => c.lastName)).toEqual(['Three']);
    expect((await h.call('GET', `${w1Customers()}?status=gone`, { token: world.adminW1.token })).status).toBe(400);
  });

  it('is for ADMINs of the workspace and SUPER_ADMINs: a CLIENT and another tenant get 403, an unknown workspace 404', async () => {
    expect((await h.call('GET', w1Customers(), { token: world.clientW1.token })).status).toBe(403);
    expect((await h.call('GET', w1Customers(), { token: world.adminW2.token })).status).toBe(403);
    expect((await adminCreates({ email: uniqueEmail('x') }, world.adminW2.token)).status).toBe(403);
    expect((await h.call('GET', w1Customers())).status).toBe(401);
    const unknown = await h.call('GET', '/api/v1/workspaces/00000000-0000-4000-8000-000000000000/customers', {
      token: world.superAdmin.token,
    });
    expect(unknown.status).toBe(404);
  });
});

describe('global customers', () => {
  it('lists across workspaces for a SUPER_ADMIN, only its own for an ADMIN', async () => {
    const all = await h.call('GET', '/api/v1/customers?limit=100', { token: world.superAdmin.token });
    expect(new Set(all.body.data.map((c: Json) => c.workspaceId))).toEqual(new Set([world.w1.id, world.w2.id]));
    const mine = await h.call('GET', '/api/v1/customers?limit=100', { token: world.adminW1.token });
    expect(mine.body.data.every((c: Json) => c.workspaceId === world.w1.id)).toBe(true);
    const filtered = await h.call('GET', `/api/v1/customers?workspaceId=${world.w2.id}`, { token: world.superAdmin.token });
    expect(filtered.body.data.every((c: Json) => c.workspaceId === world.w2.id)).toBe(true);
    expect((await h.call('GET', `/api/v1/customers?workspaceId=${world.w2.id}`, { token: world.adminW1.token })).status).toBe(403);
    expect((await h.call('GET', '/api/v1/customers', { token: world.clientW1.token })).status).toBe(403);
  });

  it('creates with workspaceId: unknown workspace 400, another tenant 403', async () => {
    const email = uniqueEmail('global');
    const created = await h.call('POST', '/api/v1/customers', {
      token: world.superAdmin.token,
      body: { workspaceId: world.w2.id, email, firstName: 'Grace', lastName: 'Hopper', status: 'pending' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ workspaceId: world.w2.id, status: 'pending' });
    const unknown = await h.call('POST', '/api/v1/customers', {
      token: world.superAdmin.token,
      body: { workspaceId: '00000000-0000-4000-8000-000000000000', email, firstName: 'A', lastName: 'B' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors).toEqual([{ field: 'workspaceId', reason: 'is not an existing workspace' }]);
    const foreign = await h.call('POST', '/api/v1/customers', {
      token: world.adminW1.token,
      body: { workspaceId: world.w2.id, email: uniqueEmail('f'), firstName: 'A', lastName: 'B' },
    });
    expect(foreign.status).toBe(403);
  });

  it('gets, updates and deletes; another tenant gets 404 and changes nothing', async () => {
    const created = await adminCreates({ email: uniqueEmail('crud') });
    const id = created.body.data.id as string;
    expect((await h.call('GET', `/api/v1/customers/${id}`, { token: world.adminW1.token })).body.data.id).toBe(id);
    expect((await h.call('GET', `/api/v1/customers/${id}`, { token: world.adminW2.token })).status).toBe(404);
    expect((await h.call('PUT', `/api/v1/customers/${id}`, { token: world.adminW2.token, body: { city: 'Oslo' } })).status).toBe(404);
    expect((await h.call('DELETE', `/api/v1/customers/${id}`, { token: world.adminW2.token })).status).toBe(404);

    const updated = await h.call('PUT', `/api/v1/customers/${id}`, {
      token: world.adminW1.token,
      body: { city: 'Paris', country: 'fr', phoneNumber: null, metadata: { vip: true } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({ city: 'Paris', country: 'FR', phoneNumber: null, metadata: { vip: true } });
    const [entry] = await auditEntries(h, { action: 'customer.update', resourceId: id });
    expect(entry?.changes).toMatchObject({ city: { from: null, to: 'Paris' }, country: { from: null, to: 'FR' } });
    expect((await h.call('PUT', `/api/v1/customers/${id}`, { token: world.adminW1.token, body: {} })).status).toBe(400);
    expect(
      (await h.call('PUT', `/api/v1/customers/${id}`, { token: world.adminW1.token, body: { workspaceId: world.w2.id } })).status,
    ).toBe(400);

    const removed = await h.call('DELETE', `/api/v1/customers/${id}`, { token: world.adminW1.token });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ message: `Customer ${id} deleted` });
    expect((await h.call('GET', `/api/v1/customers/${id}`, { token: world.adminW1.token })).status).toBe(404);
    expect((await h.call('DELETE', `/api/v1/customers/${id}`, { token: world.adminW1.token })).status).toBe(404);
  });

  it('answers 409 when an update takes another customer e-mail', async () => {
    const a = await adminCreates({ email: uniqueEmail('a') });
    const b = await adminCreates({ email: uniqueEmail('b') });
    const res = await h.call('PUT', `/api/v1/customers/${b.body.data.id}`, {
      token: world.adminW1.token,
      body: { email: a.body.data.email },
    });
    expect(res.status).toBe(409);
  });
});

describe('customer self-service', () => {
  it('registers by workspace slug or id: 201 and exactly the spec session result', async () => {
    const email = uniqueEmail('Self.Service');
    const res = await h.call('POST', auth(world.w1.slug, 'register'), {
      body: { email: email.toUpperCase(), password: PASSWORD, firstName: 'Sam' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toEqual({
      customer: {
        id: expect.any(String),
        email: email.toLowerCase(),
        firstName: 'Sam',
        lastName: null,
        walletAddress: null,
        status: 'active',
      },
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^hfcr_/),
      expiresIn: 3600,
    });
    const [row] = await h.sql`select workspace_id, password_hash from workspace.customers where id = ${res.body.data.customer.id}`;
    expect(row).toMatchObject({ workspace_id: world.w1.id, password_hash: expect.stringMatching(/^\$argon2id\$/) });
    // Refresh tokens are stored only as hashes.
    const stored = await h.sql`select token_hash from workspace.customer_refresh_tokens t
      join workspace.customer_sessions s on s.id = t.session_id where s.customer_id = ${res.body.data.customer.id}`;
    expect(stored).toHaveLength(1);
    expect(stored[0]?.token_hash).not.toContain(res.body.data.refreshToken);
    const [entry] = await auditEntries(h, { action: 'customer.register', resourceId: res.body.data.customer.id });
    expect(entry).toMatchObject({ success: true, user_id: null, workspace_id: world.w1.id });
    expect(JSON.stringify(entry)).not.toContain(PASSWORD);

    const byId = await h.call('POST', auth(world.w1.id, 'register'), { body: { email: uniqueEmail('byid'), password: PASSWORD } });
    expect(byId.status).toBe(201);
  });

  it('refuses a taken e-mail (409), a weak password or bad body (400), an unknown workspace (404)', async () => {
    const email = uniqueEmail('taken');
    await registerCustomer(h, world.w1.slug, email);
    const dup = await h.call('POST', auth(world.w1.slug, 'register'), { body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(dup.status).toBe(409);
    const weak = await h.call('POST', auth(world.w1.slug, 'register'), { body: { email: uniqueEmail('weak'), password: 'weakpassword' } });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.errors[0]).toMatchObject({ field: 'password' });
    const bad = await h.call('POST', auth(world.w1.slug, 'register'), { body: { email: 'nope', password: PASSWORD, role: 'admin' } });
    expect(bad.status).toBe(400);
    const unknown = await h.call('POST', auth('no-such-workspace', 'register'), { body: { email: uniqueEmail('u'), password: PASSWORD } });
    expect(unknown.status).toBe(404);
    // The same address may register in another workspace: a separate customer.
    expect((await h.call('POST', auth(world.w2.slug, 'register'), { body: { email, password: PASSWORD } })).status).toBe(201);
  });

  it('logs in, shows me, refreshes (rotating) and logs out', async () => {
    const registered = await registerCustomer(h, world.w1.slug);
    const login = await h.call('POST', auth(world.w1.slug, 'login'), {
      body: { email: registered.email.toUpperCase(), password: PASSWORD },
    });
    expect(login.status, login.text).toBe(200);
    expect(Object.keys(login.body.data).sort()).toEqual(['accessToken', 'customer', 'expiresIn', 'refreshToken']);

    const me = await h.call('GET', auth(world.w1.id, 'me'), { token: login.body.data.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({
      id: registered.id,
      email: registered.email,
      firstName: 'Cus',
      lastName: 'Tomer',
      walletAddress: null,
      walletLinkedAt: null,
      emailVerified: false,
      status: 'active',
    });

    const refreshed = await h.call('POST', auth(world.w1.slug, 'refresh'), { body: { refreshToken: login.body.data.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.refreshToken).not.toBe(login.body.data.refreshToken);
    // Reusing the spent token revokes the session: the new one stops working too.
    const reused = await h.call('POST', auth(world.w1.slug, 'refresh'), { body: { refreshToken: login.body.data.refreshToken } });
    expect(reused.status).toBe(401);
    expect(reused.body.error.details).toEqual({ reason: 'refresh_token_reuse' });
    const after = await h.call('POST', auth(world.w1.slug, 'refresh'), { body: { refreshToken: refreshed.body.data.refreshToken } });
    expect(after.status).toBe(401);

    const again = await h.call('POST', auth(world.w1.slug, 'login'), { body: { email: registered.email, password: PASSWORD } });
    const out = await h.call('POST', auth(world.w1.slug, 'logout'), { body: { refreshToken: again.body.data.refreshToken } });
    expect(out.status).toBe(200);
    expect((await h.call('POST', auth(world.w1.slug, 'refresh'), { body: { refreshToken: again.body.data.refreshToken } })).status).toBe(
      401,
    );
    expect((await auditEntries(h, { action: 'customer.logout' }))[0]).toMatchObject({ success: true, workspace_id: world.w1.id });
  });

  it('refuses wrong credentials with 401 INVALID_CREDENTIALS, audited, and locks the address after 10 failures', async () => {
    const registered = await registerCustomer(h, world.w1.slug);
    const wrong = await h.call('POST', auth(world.w1.slug, 'login'), { body: { email: registered.email, password: 'Wrong!Passw0rd' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    const unknown = await h.call('POST', auth(world.w1.slug, 'login'), { body: { email: uniqueEmail('nobody'), password: PASSWORD } });
    expect(unknown.body.error.code).toBe('INVALID_CREDENTIALS');
    const [entry] = await auditEntries(h, { action: 'customer.login' });
    expect(entry).toMatchObject({ success: false, workspace_id: world.w1.id });
    // The same address in another workspace is another customer: wrong there, not here.
    expect((await h.call('POST', auth(world.w2.slug, 'login'), { body: { email: registered.email, password: PASSWORD } })).status).toBe(
      401,
    );
    for (let i = 0; i < 9; i++) {
      await h.call('POST', auth(world.w1.slug, 'login'), { body: { email: registered.email, password: 'Wrong!Passw0rd' } });
    }
    const locked = await h.call('POST', auth(world.w1.slug, 'login'), { body: { email: registered.email, password: PASSWORD } });
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBeDefined();
  });

  it('binds the customer token to its workspace: another workspace 403, user routes 401, and user tokens 401 here', async () => {
    const registered = await registerCustomer(h, world.w1.slug);
    const other = await h.call('GET', auth(world.w2.id, 'me'), { token: registered.token });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    expect((await h.call('GET', auth(world.w2.slug, 'me'), { token: registered.token })).status).toBe(403);
    // A customer token is no user token.
    for (const path of ['/identity/me', `/api/v1/workspaces/${world.w1.id}`, '/api/v1/users/me', w1Customers()]) {
      const res = await h.call('GET', path, { token: registered.token });
      expect(res.status, path).toBe(401);
    }
    // A user token is no customer token; nor is none, an expired one, a forged one.
    for (const token of [world.adminW1.token, world.superAdmin.token, world.clientW1.token, undefined]) {
      const res = await h.call('GET', auth(world.w1.id, 'me'), { ...(token ? { token } : {}) });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    const expired = await h.call('GET', auth(world.w1.id, 'me'), {
      token: customerJwt(registered.id, world.w1.id, sessionIdOf(registered.token), {
        iat: Math.floor(Date.now() / 1000) - 7200,
        exp: Math.floor(Date.now() / 1000) - 3600,
      }),
    });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('TOKEN_EXPIRED');
    expect((await h.call('GET', auth(world.w1.id, 'me'), { token: expiredTokenFor(world.adminW1.id) })).body.error.code).toBe(
      'TOKEN_EXPIRED',
    );
    // A token claiming another workspace than the customer's is refused.
    expect(
      (await h.call('GET', auth(world.w2.id, 'me'), { token: customerJwt(registered.id, world.w2.id, sessionIdOf(registered.token)) }))
        .status,
    ).toBe(401);
    expect(
      (
        await h.call('GET', auth(world.w1.id, 'me'), {
          token: customerJwt(registered.id, world.w1.id, sessionIdOf(registered.token), { aud: 'holdfast:workspace-user' }),
        })
      ).status,
    ).toBe(401);
  });

  it('signs a customer out when an administrator suspends it; a refresh token of another workspace is unknown', async () => {
    const registered = await registerCustomer(h, world.w1.slug);
    expect((await h.call('GET', auth(world.w1.id, 'me'), { token: registered.token })).status).toBe(200);
    const foreign = await h.call('POST', auth(world.w2.slug, 'refresh'), { body: { refreshToken: registered.refreshToken } });
    expect(foreign.status).toBe(401);
    const suspend = await h.call('PUT', `/api/v1/customers/${registered.id}`, {
      token: world.adminW1.token,
      body: { status: 'suspended' },
    });
    expect(suspend.status).toBe(200);
    expect((await h.call('GET', auth(world.w1.id, 'me'), { token: registered.token })).status).toBe(401);
    expect((await h.call('POST', auth(world.w1.slug, 'refresh'), { body: { refreshToken: registered.refreshToken } })).status).toBe(401);
    const login = await h.call('POST', auth(world.w1.slug, 'login'), { body: { email: registered.email, password: PASSWORD } });
    expect(login.status).toBe(401);
    expect(login.body.error.details).toEqual({ reason: 'account_suspended' });
  });

  it('closes a suspended workspace to its customers (403) and keeps the others open', async () => {
    const workspace = await createWorkspace(h, world.superAdmin.token, `Closing ${Date.now().toString(36)}`);
    const registered = await registerCustomer(h, workspace.slug);
    await h.call('PUT', `/api/v1/workspaces/${workspace.id}`, { token: world.superAdmin.token, body: { status: 'suspended' } });
    const res = await h.call('POST', auth(workspace.slug, 'login'), { body: { email: registered.email, password: PASSWORD } });
    expect(res.status).toBe(403);
    expect(
      (await h.call('POST', auth(workspace.slug, 'register'), { body: { email: uniqueEmail('late'), password: PASSWORD } })).status,
    ).toBe(403);
    expect((await h.call('GET', auth(workspace.id, 'me'), { token: registered.token })).status).toBe(401);
  });
});

describe('linking a wallet with Sign-In with Ethereum', () => {
  it('links a real viem-signed wallet; me shows it; the replay is refused; another workspace token is refused', async () => {
    const registered = await registerCustomer(h, world.w1.slug);
    const account = privateKeyToAccount(generatePrivateKey());
    const { linked, body } = await linkWallet(h, world.w1.slug, registered.token, account);
    expect(linked.status, linked.text).toBe(200);
    expect(linked.body.data).toEqual({
      customerId: registered.id,
      walletAddress: account.address,
      walletLinkedAt: expect.any(String),
      chainId: 84532,
      source: 'siwe',
    });
    const me = await h.call('GET', auth(world.w1.slug, 'me'), { token: registered.token });
    expect(me.body.data).toMatchObject({ walletAddress: account.address, walletLinkedAt: linked.body.data.walletLinkedAt });
    const record = await h.call('GET', `/api/v1/customers/${registered.id}`, { token: world.adminW1.token });
    expect(record.body.data).toMatchObject({ walletAddress: account.address, walletLinkedAt: linked.body.data.walletLinkedAt });
    const [entry] = await auditEntries(h, { action: 'customer_wallet.link', resourceId: registered.id });
    expect(entry).toMatchObject({ success: true, workspace_id: world.w1.id, user_id: null });

    // The same signed message again: its nonce is spent.
    const replay = await h.call('POST', auth(world.w1.slug, 'link-wallet'), { token: registered.token, body });
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('INVALID_CODE');
    // The refusal is in the workspace's trail, on the customer.
    const [refused] = await auditEntries(h, { action: 'customer_wallet.link', resourceId: registered.id });
    expect(refused).toMatchObject({
      success: false,
      user_id: null,
      workspace_id: world.w1.id,
      metadata: expect.objectContaining({ customerId: registered.id, errorCode: 'INVALID_CODE' }),
    });
    // Replayed by another customer of the workspace (its nonce is not theirs), or on another workspace.
    const thief = await registerCustomer(h, world.w1.slug);
    expect((await h.call('POST', auth(world.w1.slug, 'link-wallet'), { token: thief.token, body })).body.error.code).toBe('INVALID_CODE');
    expect((await h.call('POST', auth(world.w2.slug, 'link-wallet'), { token: registered.token, body })).status).toBe(403);
    const w2Customer = await registerCustomer(h, world.w2.slug);
    expect((await h.call('POST', auth(world.w1.slug, 'link-wallet'), { token: w2Customer.token, body })).status).toBe(403);
    // A user token is refused.
    expect((await h.call('POST', auth(world.w1.slug, 'link-wallet'), { token: world.adminW1.token, body })).status).toBe(401);
    // A second wallet: 400 WALLET_ALREADY_LINKED from the nonce on.
    const second = await h.call('POST', auth(world.w1.slug, 'wallet-nonce'), { token: registered.token, body: {} });
    expect(second.status).toBe(400);
    expect(second.body.error.code).toBe('WALLET_ALREADY_LINKED');
  });

  it('refuses a signature of another wallet and a bad body, linking nothing', async () => {
    const registered = await registerCustomer(h, world.w1.slug);
    const account = privateKeyToAccount(generatePrivateKey());
    const nonce = await h.call('POST', auth(world.w1.slug, 'wallet-nonce'), {
      token: registered.token,
      body: { walletAddress: account.address },
    });
    const message = nonce.body.data.message as string;
    const impostor = privateKeyToAccount(generatePrivateKey());
    const forged = await h.call('POST', auth(world.w1.slug, 'link-wallet'), {
      token: registered.token,
      body: { walletAddress: account.address, message, signature: await impostor.signMessage({ message }) },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.details.errors).toEqual([{ field: 'signature', reason: 'does not prove ownership of walletAddress' }]);
    const bad = await h.call('POST', auth(world.w1.slug, 'link-wallet'), {
      token: registered.token,
      body: { walletAddress: 'not-an-address', message: '', signature: 'zz' },
    });
    expect(bad.status).toBe(400);
    expect((await h.call('GET', auth(world.w1.slug, 'me'), { token: registered.token })).body.data.walletAddress).toBeNull();
    // The nonce was not spent by the failed attempt: the real signature still links.
    const ok = await h.call('POST', auth(world.w1.slug, 'link-wallet'), {
      token: registered.token,
      body: { walletAddress: account.address, message, signature: await account.signMessage({ message }) },
    });
    expect(ok.status).toBe(200);
  });

  it('shows the customer its wallet balance on the local chain; 404 without a wallet', async () => {
    const registered = await registerCustomer(h, world.w1.slug);
    expect((await h.call('GET', auth(world.w1.slug, 'wallet-balances'), { token: registered.token })).status).toBe(404);
    const account = privateKeyToAccount(generatePrivateKey());
    await linkWallet(h, world.w1.slug, registered.token, account);
    await anvilClients(anvil.rpcUrl).fund(account.address, '2');
    const balances = await h.call('GET', auth(world.w1.slug, 'wallet-balances'), { token: registered.token });
    expect(balances.status).toBe(200);
    expect(balances.body.data.warnings).toEqual([]);
    expect(balances.body.data.balances).toEqual([
      { address: account.address, network: 'base-sepolia', nativeBalance: '2', nativeSymbol: 'ETH', tokens: [] },
    ]);
  });
});

describe('deleting', () => {
  it('a customer removes its sessions, wallet link and nonces; a workspace removes its customers and wallet rows', async () => {
    const workspace = await createWorkspace(h, world.superAdmin.token, `Doomed ${Date.now().toString(36)}`);
    const gone = await registerCustomer(h, workspace.slug);
    const kept = await registerCustomer(h, workspace.slug);
    await linkWallet(h, workspace.slug, gone.token, privateKeyToAccount(generatePrivateKey()));
    await linkWallet(h, workspace.slug, kept.token, privateKeyToAccount(generatePrivateKey()));
    await h.call('POST', auth(workspace.slug, 'wallet-nonce'), { token: kept.token, body: {} }).catch(() => undefined);
    await h.call('PUT', `/api/v1/workspaces/${workspace.id}/external-wallet-configs/EXTERNAL_WALLET_1`, {
      token: world.superAdmin.token,
      body: { isEnabled: true },
    });
    expect((await h.call('DELETE', `/api/v1/customers/${gone.id}`, { token: world.superAdmin.token })).status).toBe(200);
    for (const table of ['customer_wallets', 'customer_sessions', 'wallet_link_nonces']) {
      expect(await h.sql`select 1 from ${h.sql(`workspace.${table}`)} where customer_id = ${gone.id}`, table).toHaveLength(0);
    }
    expect(await h.sql`select 1 from workspace.customer_wallets where customer_id = ${kept.id}`).toHaveLength(1);

    expect((await h.call('DELETE', `/api/v1/workspaces/${workspace.id}`, { token: world.superAdmin.token })).status).toBe(204);
    for (const table of ['customers', 'customer_wallets', 'wallet_link_nonces', 'external_wallet_configs']) {
      expect(await h.sql`select 1 from ${h.sql(`workspace.${table}`)} where workspace_id = ${workspace.id}`, table).toHaveLength(0);
    }
  });
});
