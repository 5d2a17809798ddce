import { randomUUID } from 'node:crypto';
import { PAYMENTS_COMMANDS, SANDBOX_CLIENT_SCOPES, SANDBOX_KEY_SCOPES } from '@holdfast/contracts';
import { prefixed, sendCommand } from '@holdfast/messaging';
import { fileFixture } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { bearer, call, key, startPaymentsEnv, tokenFor } from '../support/harness.js';

// The commands the Workspace API sends to payments (PAYMENTS_COMMANDS), over real NATS against a
// real payments instance: sandbox credentials, a workspace's platforms, its OAuth clients.

const C = PAYMENTS_COMMANDS;

const e = fileFixture(() => startPaymentsEnv());

const send = <K extends keyof typeof C>(name: K, request: Parameters<typeof sendCommand<(typeof C)[K]>>[2]) =>
  sendCommand(e.nats.bus, C[name], request);

/** A raw request, bypassing the sender's own payload check, to see what payments answers. */
async function raw(subject: string, payload: unknown) {
  const reply = await e.nats.bus.nc.request(prefixed(e.nats.bus, subject), JSON.stringify(payload), { timeout: 5000 });
  return reply.json() as { ok: boolean; error?: { code: string } };
}

const sandbox = (workspaceId: string, name?: string) => send('issueSandboxCredentials', { workspaceId, ...(name ? { name } : {}) });
const me = (apiKey: string) => call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(apiKey) });

describe(C.issueSandboxCredentials.subject, () => {
  it('mints a sandbox platform with an API key and an OAuth client, secrets shown once', async () => {
    const workspaceId = randomUUID();
    const cred = await sandbox(workspaceId, 'Acme sandbox');
    expect(cred).toMatchObject({
      name: 'Acme sandbox',
      scopes: [...SANDBOX_KEY_SCOPES],
      oauthClient: { scopes: [...SANDBOX_CLIENT_SCOPES] },
    });
    expect(cred.apiKey).toMatch(/^hf_test_/);
    expect(cred.oauthClient.clientSecret).toMatch(/^hf_secret_/);
    expect(cred.warning).toMatch(/shown only once/);
    const platform = await me(cred.apiKey);
    expect(platform.body).toMatchObject({ id: cred.platformId, workspaceId, sandbox: true, isActive: true });
    const token = await tokenFor(e.svc.url, cred.oauthClient);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).body.id).toBe(cred.platformId);
    const named = await sandbox(workspaceId);
    expect(named.name).toMatch(/^Sandbox \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  });

  it('refuses a malformed request and creates nothing', async () => {
    const before = (await e.sql`select count(*) as n from platforms`)[0]?.n;
    expect((await raw(C.issueSandboxCredentials.subject, { workspaceId: 'nope' })).error?.code).toBe('VALIDATION_ERROR');
    expect((await raw(C.issueSandboxCredentials.subject, { workspaceId: randomUUID(), name: 'x' })).error?.code).toBe('VALIDATION_ERROR');
    expect((await e.sql`select count(*) as n from platforms`)[0]?.n).toBe(before);
  });
});

describe(`${C.listPlatforms.subject}, ${C.deactivatePlatform.subject}, ${C.deactivateWorkspacePlatforms.subject}`, () => {
  it("lists only the workspace's platforms, without key material", async () => {
    const workspaceId = randomUUID();
    const a = await sandbox(workspaceId, 'first');
    const b = await sandbox(workspaceId, 'second');
    await sandbox(randomUUID(), 'someone else');
    const { platforms } = await send('listPlatforms', { workspaceId });
    expect(platforms.map((p) => p.platformId)).toEqual([b.platformId, a.platformId]);
    expect(platforms[0]).toMatchObject({
      workspaceId,
      sandbox: true,
      isActive: true,
      oauthClientIds: [b.oauthClient.clientId],
      deactivatedAt: null,
    });
    expect(JSON.stringify(platforms)).not.toContain(a.apiKey);
    expect(platforms[0]?.apiKeyHint).toBe(`${b.apiKey.slice(0, 12)}…${b.apiKey.slice(-4)}`);
  });

  it('deactivates one platform: its key and tokens stop at once; another workspace cannot', async () => {
    const workspaceId = randomUUID();
    const cred = await sandbox(workspaceId);
    const token = await tokenFor(e.svc.url, cred.oauthClient);
    expect((await me(cred.apiKey)).status).toBe(200);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(200);
    await expect(send('deactivatePlatform', { workspaceId: randomUUID(), platformId: cred.platformId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await me(cred.apiKey)).status).toBe(200);
    expect(await send('deactivatePlatform', { workspaceId, platformId: cred.platformId })).toEqual({
      platformId: cred.platformId,
      revokedTokens: 1,
    });
    expect((await me(cred.apiKey)).status).toBe(401);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(401);
    expect(
      (
        await call(e.svc.url, 'POST', '/api/v2/oauth/token', {
          body: { grant_type: 'client_credentials', client_id: cred.oauthClient.clientId, client_secret: cred.oauthClient.clientSecret },
        })
      ).status,
    ).toBe(401);
    expect(await send('deactivatePlatform', { workspaceId, platformId: cred.platformId })).toEqual({
      platformId: cred.platformId,
      revokedTokens: 0,
    });
    expect((await send('listPlatforms', { workspaceId })).platforms).toEqual([]);
    const all = await send('listPlatforms', { workspaceId, includeInactive: true });
    expect(all.platforms[0]).toMatchObject({ isActive: false });
    expect(all.platforms[0]?.deactivatedAt).toBeTruthy();
    await expect(send('deactivatePlatform', { workspaceId, platformId: randomUUID() })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deactivates every platform of a workspace, and only those', async () => {
    const workspaceId = randomUUID();
    const a = await sandbox(workspaceId);
    const b = await sandbox(workspaceId);
    const bystander = await sandbox(randomUUID());
    await tokenFor(e.svc.url, a.oauthClient);
    const result = await send('deactivateWorkspacePlatforms', { workspaceId });
    expect(result.platformIds.sort()).toEqual([a.platformId, b.platformId].sort());
    expect(result.revokedTokens).toBe(1);
    expect((await me(a.apiKey)).status).toBe(401);
    expect((await me(b.apiKey)).status).toBe(401);
    expect((await me(bystander.apiKey)).status).toBe(200);
    expect(await send('deactivateWorkspacePlatforms', { workspaceId })).toEqual({ platformIds: [], revokedTokens: 0 });
  });
});

describe('OAuth clients of a workspace', () => {
  it('creates on the newest sandbox platform or a named one; refuses operator scopes, foreign platforms and a workspace without one', async () => {
    const workspaceId = randomUUID();
    await expect(send('createOAuthClient', { workspaceId, name: 'early', scopes: ['read:transactions'] })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const older = await sandbox(workspaceId);
    const newer = await sandbox(workspaceId);
    const created = await send('createOAuthClient', {
      workspaceId,
      name: 'Backend',
      scopes: ['read:transactions', 'move:transactions'],
      description: 'our server',
      grantTypes: ['client_credentials'],
      redirectUris: [],
    });
    expect(created).toMatchObject({
      platformId: newer.platformId,
      workspaceId,
      name: 'Backend',
      description: 'our server',
      isActive: true,
    });
    expect(created.clientSecret).toMatch(/^hf_secret_/);
    const onOlder = await send('createOAuthClient', {
      workspaceId,
      platformId: older.platformId,
      name: 'Old',
      scopes: ['read:transactions'],
    });
    expect(onOlder.platformId).toBe(older.platformId);
    const foreign = await sandbox(randomUUID());
    await expect(
      send('createOAuthClient', { workspaceId, platformId: foreign.platformId, name: 'x', scopes: ['read:transactions'] }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(send('createOAuthClient', { workspaceId, name: 'x', scopes: ['admin:platform'] })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect((await raw(C.createOAuthClient.subject, { workspaceId, name: 'x', scopes: ['read:nothing'] })).error?.code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await e.sql`select count(*) as n from oauth_clients where workspace_id = ${workspaceId}`)[0]?.n).toBe('4');
  });

  it('lists, gets, updates, revokes, counts and deletes, within the workspace only', async () => {
    const workspaceId = randomUUID();
    const intruder = randomUUID();
    const cred = await sandbox(workspaceId);
    await sandbox(intruder);
    const client = await send('createOAuthClient', { workspaceId, name: 'App', scopes: ['read:platform', 'read:transactions'] });

    const { clients } = await send('listOAuthClients', { workspaceId });
    expect(clients.map((c) => c.clientId)).toEqual([client.clientId, cred.oauthClient.clientId]);
    expect(JSON.stringify(clients)).not.toContain('hf_secret_');
    expect((await send('listOAuthClients', { workspaceId: intruder })).clients.map((c) => c.clientId)).not.toContain(client.clientId);

    expect(await send('getOAuthClient', { workspaceId, clientId: client.clientId })).toMatchObject({ id: client.id, name: 'App' });
    expect(await send('getOAuthClient', { workspaceId, clientId: client.id })).toMatchObject({ clientId: client.clientId });
    for (const name of ['getOAuthClient', 'revokeOAuthClientTokens', 'oauthClientStats', 'deleteOAuthClient'] as const) {
      await expect(send(name, { workspaceId: intruder, clientId: client.clientId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    await expect(send('updateOAuthClient', { workspaceId: intruder, clientId: client.clientId, name: 'Hijacked' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(send('getOAuthClient', { workspaceId, clientId: 'garbage' })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const t1 = await tokenFor(e.svc.url, client);
    const t2 = await tokenFor(e.svc.url, client);
    const own = `/api/v2/auth/platform/${cred.platformId}`;
    expect((await call(e.svc.url, 'GET', own, { headers: bearer(t1) })).status).toBe(200);
    const narrowed = await send('updateOAuthClient', {
      workspaceId,
      clientId: client.clientId,
      name: 'App v2',
      description: 'narrowed',
      scopes: ['read:transactions'],
    });
    expect(narrowed).toMatchObject({ name: 'App v2', description: 'narrowed', scopes: ['read:transactions'], isActive: true });
    expect((await call(e.svc.url, 'GET', own, { headers: bearer(t1) })).status).toBe(403);
    await expect(send('updateOAuthClient', { workspaceId, clientId: client.clientId, scopes: ['admin:platform'] })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });

    expect(await send('oauthClientStats', { workspaceId, clientId: client.clientId })).toEqual({
      totalTokens: 2,
      activeTokens: 2,
      revokedTokens: 0,
    });
    expect(await send('revokeOAuthClientTokens', { workspaceId, clientId: client.id })).toEqual({ count: 2 });
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(t2) })).status).toBe(401);
    expect(await send('oauthClientStats', { workspaceId, clientId: client.clientId })).toEqual({
      totalTokens: 2,
      activeTokens: 0,
      revokedTokens: 2,
    });

    const t3 = await tokenFor(e.svc.url, client);
    const off = await send('updateOAuthClient', { workspaceId, clientId: client.clientId, isActive: false });
    expect(off.isActive).toBe(false);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(t3) })).status).toBe(401);
    expect((await e.sql`select count(*) as n from oauth_tokens where client_pk = ${client.id} and revoked_at is null`)[0]?.n).toBe('0');
    await expect(tokenFor(e.svc.url, client)).rejects.toThrow(/401/);
    await send('updateOAuthClient', { workspaceId, clientId: client.clientId, isActive: true });
    const t4 = await tokenFor(e.svc.url, client);

    expect(await send('deleteOAuthClient', { workspaceId, clientId: client.clientId })).toEqual({
      clientId: client.clientId,
      revokedTokens: 1,
    });
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(t4) })).status).toBe(401);
    await expect(send('getOAuthClient', { workspaceId, clientId: client.clientId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await send('listOAuthClients', { workspaceId })).clients.map((c) => c.clientId)).toEqual([cred.oauthClient.clientId]);
    await expect(tokenFor(e.svc.url, client)).rejects.toThrow(/401/);
    expect((await raw(C.updateOAuthClient.subject, { workspaceId, clientId: cred.oauthClient.clientId, isActive: 'no' })).error?.code).toBe(
      'VALIDATION_ERROR',
    );
  });
});
