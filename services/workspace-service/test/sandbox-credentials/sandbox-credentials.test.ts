import { randomUUID } from 'node:crypto';
import { PAYMENTS_COMMANDS, SANDBOX_CLIENT_SCOPES, SANDBOX_KEY_SCOPES, uuidv7, WebhookCommands } from '@holdfast/contracts';
import { sendCommand } from '@holdfast/messaging';
import { sendWebhookCommand, until } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { auditEntries, type Json, worldPerFile } from '../support/harness.js';
import { bearer, callPayments, key, newTenant, paymentsToken } from '../support/integrations.js';

// Sandbox credentials against a real payments-service and webhook-dispatcher: issued once with
// their secrets, listed without, revoked in payments; the limits (2 active, 5 an hour) under
// concurrency; and what happens when payments and the workspace disagree after a failure.

/** Short, so the failure cases settle quickly; longer than any issuance of this file takes. */
const RECONCILE_AFTER_MS = 5000;

const { h, world } = worldPerFile({}, { peers: true, overrides: { sandboxReconcileAfterMs: RECONCILE_AFTER_MS } });

async function issue(base: string, token: string) {
  return h.call('POST', `${base}/sandbox-credentials`, { token });
}

async function issued(base: string, token: string): Promise<Json> {
  const res = await issue(base, token);
  if (res.status !== 201) throw new Error(`issue: ${res.status} ${res.text}`);
  return res.body.data;
}

describe('POST /workspaces/{id}/sandbox-credentials', () => {
  it('mints a platform with an API key (v1) and an OAuth client (v2), shown once, and maps it to the workspace', async () => {
    const t = await newTenant(h, world);
    const res = await issue(t.base, t.admin.token);
    expect(res.status).toBe(201);
    const credential = res.body.data;
    expect(credential).toMatchObject({
      name: expect.stringMatching(new RegExp(`^${t.workspace.slug} sandbox [0-9a-f]{12}$`)),
      scopes: [...SANDBOX_KEY_SCOPES],
      oauthClient: { clientId: expect.stringMatching(/^hf_client_/), scopes: [...SANDBOX_CLIENT_SCOPES] },
      warning: expect.stringMatching(/only once/),
    });
    expect(credential.apiKey).toMatch(/^hf_test_/);
    expect(credential.oauthClient.clientSecret).toMatch(/^hf_secret_/);

    // Both credentials work on the Payments API, for this workspace.
    const me = await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(credential.apiKey) });
    expect(me.body).toMatchObject({ id: credential.platformId, workspaceId: t.workspace.id, sandbox: true, isActive: true });
    const token = await paymentsToken(h, credential.oauthClient);
    expect((await callPayments(h, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).body.id).toBe(credential.platformId);

    const [mapping] = await h.sql`select * from workspace.platform_mappings where platform_id = ${credential.platformId}`;
    expect(mapping).toMatchObject({ workspace_id: t.workspace.id, kind: 'sandbox', status: 'active', created_by: t.admin.id });
    const [issuance] = await h.sql`select status, platform_id from workspace.sandbox_issuances where workspace_id = ${t.workspace.id}`;
    expect(issuance).toEqual({ status: 'completed', platform_id: credential.platformId });

    // The trail names the credential, never its secrets.
    const [entry] = await auditEntries(h, { action: 'sandbox_credential.issue', resourceId: credential.platformId });
    expect(entry).toMatchObject({ success: true, user_id: t.admin.id, workspace_id: t.workspace.id });
    const trail = JSON.stringify(entry);
    expect(trail).not.toContain(credential.apiKey);
    expect(trail).not.toContain(credential.oauthClient.clientSecret);
    expect(trail).toContain(credential.oauthClient.clientId);
  });

  it('lists the credentials without key material', async () => {
    const t = await newTenant(h, world);
    expect((await h.call('GET', `${t.base}/sandbox-credentials`, { token: t.client.token })).body.data).toEqual([]);
    const credential = await issued(t.base, t.admin.token);
    const list = await h.call('GET', `${t.base}/sandbox-credentials`, { token: t.client.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        platformId: credential.platformId,
        name: credential.name,
        status: 'active',
        apiKeyHint: `${credential.apiKey.slice(0, 12)}…${credential.apiKey.slice(-4)}`,
        scopes: [...SANDBOX_KEY_SCOPES],
        oauthClientIds: [credential.oauthClient.clientId],
        createdBy: t.admin.id,
        createdAt: expect.any(String),
        revokedAt: null,
      },
    ]);
    expect(list.text).not.toContain(credential.apiKey);
    expect(list.text).not.toContain(credential.oauthClient.clientSecret);
  });

  it('holds at most 2 active per workspace (409), and issues again once one is revoked', async () => {
    const t = await newTenant(h, world);
    const first = await issued(t.base, t.admin.token);
    await issued(t.base, t.admin.token);
    const third = await issue(t.base, t.admin.token);
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({ code: 'CONFLICT', details: { limit: 2, active: 2 } });
    expect((await h.sql`select count(*)::int as n from payments.platforms where workspace_id = ${t.workspace.id}`)[0]?.n).toBe(2);
    const [refusal] = await auditEntries(h, { action: 'sandbox_credential.issue', userId: t.admin.id });
    expect(refusal).toMatchObject({ success: false, metadata: expect.objectContaining({ statusCode: 409, errorCode: 'CONFLICT' }) });

    expect((await h.call('DELETE', `${t.base}/sandbox-credentials/${first.platformId}`, { token: t.admin.token })).status).toBe(204);
    expect((await issue(t.base, t.admin.token)).status).toBe(201);
  });

  it('issues at most 5 per hour, revoked ones counted (429 with Retry-After), and records the refusal', async () => {
    const t = await newTenant(h, world);
    for (let i = 0; i < 5; i += 1) {
      const credential = await issued(t.base, t.admin.token);
      expect((await h.call('DELETE', `${t.base}/sandbox-credentials/${credential.platformId}`, { token: t.admin.token })).status).toBe(204);
    }
    const sixth = await issue(t.base, t.admin.token);
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { limit: 5, windowSeconds: 3600 } });
    const retryAfter = Number(sixth.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(sixth.body.error.details.retryAfter).toBe(retryAfter);
    // Nothing was minted, and the refusal is in the trail (the rate limiter's own 429s are not).
    expect((await h.sql`select count(*)::int as n from payments.platforms where workspace_id = ${t.workspace.id}`)[0]?.n).toBe(5);
    const [refusal] = await auditEntries(h, { action: 'sandbox_credential.issue', userId: t.admin.id });
    expect(refusal).toMatchObject({
      success: false,
      metadata: expect.objectContaining({ statusCode: 429, errorCode: 'RATE_LIMIT_EXCEEDED' }),
    });
  });

  it('lets only as many concurrent requests through as the limit allows', async () => {
    const t = await newTenant(h, world);
    await issued(t.base, t.admin.token);
    // One slot left: two requests at once, exactly one gets it.
    const pair = await Promise.all([issue(t.base, t.admin.token), issue(t.base, t.admin.token)]);
    expect(pair.map((r) => r.status).sort()).toEqual([201, 409]);

    // An empty workspace and a burst of five: two get credentials, three get 409.
    const u = await newTenant(h, world);
    const burst = await Promise.all(Array.from({ length: 5 }, () => issue(u.base, u.admin.token)));
    expect(burst.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
    expect((await h.sql`select count(*)::int as n from payments.platforms where workspace_id = ${u.workspace.id}`)[0]?.n).toBe(2);
    expect(
      (
        await h.sql`select count(*)::int as n from workspace.platform_mappings where workspace_id = ${u.workspace.id} and status = 'active'`
      )[0]?.n,
    ).toBe(2);
  });

  it('refuses members without the ADMIN role, other tenants, and unknown workspaces', async () => {
    const t = await newTenant(h, world);
    expect((await issue(t.base, t.client.token)).status).toBe(403);
    expect((await issue(t.base, world.adminW2.token)).status).toBe(403);
    expect((await issue(`/api/v1/workspaces/${randomUUID()}`, world.superAdmin.token)).status).toBe(404);
    expect((await h.sql`select count(*)::int as n from payments.platforms where workspace_id = ${t.workspace.id}`)[0]?.n).toBe(0);
  });
});

describe('DELETE /workspaces/{id}/sandbox-credentials/{platformId}', () => {
  it('deactivates the platform in payments (key and tokens stop at once) and its webhooks, then marks it revoked', async () => {
    const t = await newTenant(h, world);
    const credential = await issued(t.base, t.admin.token);
    const token = await paymentsToken(h, credential.oauthClient);
    const webhook = await callPayments(h, 'POST', '/api/v1/webhooks', {
      headers: key(credential.apiKey),
      body: { url: 'http://127.0.0.1:9/platform-hook', eventTypes: ['transaction.created'] },
    });
    expect(webhook.status).toBe(201);

    const res = await h.call('DELETE', `${t.base}/sandbox-credentials/${credential.platformId}`, { token: t.admin.token });
    expect(res.status).toBe(204);
    expect((await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(credential.apiKey) })).status).toBe(401);
    expect((await callPayments(h, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(401);
    const [mapping] = await h.sql`select status, revoked_at from workspace.platform_mappings where platform_id = ${credential.platformId}`;
    expect(mapping?.status).toBe('revoked');
    expect(mapping?.revoked_at).toBeInstanceOf(Date);
    await until('the platform webhook deactivated', async () => {
      const [sub] = await h.sql`select is_active from webhooks.subscriptions where id = ${webhook.body.id}`;
      return sub?.is_active === false;
    });

    const list = await h.call('GET', `${t.base}/sandbox-credentials`, { token: t.admin.token });
    expect(list.body.data[0]).toMatchObject({ platformId: credential.platformId, status: 'revoked', revokedAt: expect.any(String) });
    const [entry] = await auditEntries(h, { action: 'sandbox_credential.revoke', resourceId: credential.platformId });
    expect(entry).toMatchObject({ success: true, changes: { status: { from: 'active', to: 'revoked' } } });
    expect(entry?.metadata).toMatchObject({ revokedTokens: 1 });

    // Once revoked it is gone; another workspace's platform or an unknown one is not found either.
    expect((await h.call('DELETE', `${t.base}/sandbox-credentials/${credential.platformId}`, { token: t.admin.token })).status).toBe(404);
    const other = await newTenant(h, world);
    const theirs = await issued(other.base, other.admin.token);
    expect((await h.call('DELETE', `${t.base}/sandbox-credentials/${theirs.platformId}`, { token: t.admin.token })).status).toBe(404);
    expect((await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(theirs.apiKey) })).status).toBe(200);
    expect((await h.call('DELETE', `${t.base}/sandbox-credentials/not-a-uuid`, { token: t.admin.token })).status).toBe(400);
  });

  it('changes nothing and answers 503 while payments does not answer', async () => {
    const t = await newTenant(h, world);
    const credential = await issued(t.base, t.admin.token);
    await h.peers!.payments.stop();
    try {
      const res = await h.call('DELETE', `${t.base}/sandbox-credentials/${credential.platformId}`, { token: t.admin.token });
      expect([res.status, res.body.error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      expect(res.headers['retry-after']).toBe('1');
      const [mapping] = await h.sql`select status from workspace.platform_mappings where platform_id = ${credential.platformId}`;
      expect(mapping?.status).toBe('active');
    } finally {
      await h.peers!.payments.start();
    }
    expect((await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(credential.apiKey) })).status).toBe(200);
  });
});

describe('when payments and the workspace disagree, no credential stays usable without its mapping', () => {
  it('payments unreachable at issuance: 503, the attempt holds a slot until it is reconciled as failed', async () => {
    const t = await newTenant(h, world);
    await issued(t.base, t.admin.token);
    await h.peers!.payments.stop();
    let res: Awaited<ReturnType<typeof issue>>;
    try {
      res = await issue(t.base, t.admin.token);
    } finally {
      await h.peers!.payments.start();
    }
    expect([res.status, res.body.error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    // Its outcome unknown, the attempt counts as active until the reconciliation settles it.
    const meanwhile = await issue(t.base, t.admin.token);
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.error.details).toMatchObject({ active: 2, beingIssued: 1 });
    await until('the issuance reconciled', async () => {
      const rows =
        await h.sql`select status from workspace.sandbox_issuances where workspace_id = ${t.workspace.id} and status <> 'completed'`;
      return rows[0]?.status === 'failed';
    });
    expect((await issue(t.base, t.admin.token)).status).toBe(201);
  });

  it('payments minted but the mapping could not be written: 500, and the platform is deactivated by the reconciliation', async () => {
    const t = await newTenant(h, world);
    // The workspace's own write fails (a trigger on its table), after payments has answered.
    const fn = `fail_mappings_${randomUUID().replaceAll('-', '')}`;
    await h.sql.unsafe(`create function workspace.${fn}() returns trigger language plpgsql as $$
      begin if new.workspace_id = '${t.workspace.id}' then raise exception 'disk full'; end if; return new; end $$`);
    await h.sql.unsafe(`create trigger ${fn} before insert on workspace.platform_mappings for each row execute function workspace.${fn}()`);
    let res: Awaited<ReturnType<typeof issue>>;
    try {
      res = await issue(t.base, t.admin.token);
    } finally {
      await h.sql.unsafe(`drop trigger ${fn} on workspace.platform_mappings`);
      await h.sql.unsafe(`drop function workspace.${fn}()`);
    }
    expect(res.status).toBe(500);
    expect(res.text).not.toMatch(/hf_test_|hf_secret_/);
    const [platform] = await h.sql`select id, is_active from payments.platforms where workspace_id = ${t.workspace.id}`;
    expect(platform?.is_active).toBe(true);
    // The reconciliation deactivates the platform, then (same transaction) closes the issuance.
    const issuance = await until('the issuance abandoned', async () => {
      const [row] = await h.sql`select status, platform_id from workspace.sandbox_issuances where workspace_id = ${t.workspace.id}`;
      return row?.status === 'abandoned' ? row : undefined;
    });
    expect(issuance).toEqual({ status: 'abandoned', platform_id: platform!.id });
    expect((await h.sql`select is_active from payments.platforms where id = ${platform!.id}`)[0]?.is_active).toBe(false);
    expect((await h.sql`select count(*)::int as n from workspace.platform_mappings where workspace_id = ${t.workspace.id}`)[0]?.n).toBe(0);
    // The slot is free again.
    expect((await issue(t.base, t.admin.token)).status).toBe(201);
  });

  it("payments minted but its answer was lost: the platform is found by the issuance's name and deactivated with its webhooks", async () => {
    const t = await newTenant(h, world);
    // The state a lost answer leaves: a pending issuance with its reconciliation due, a platform under its name.
    const issuanceId = uuidv7();
    const name = `${t.workspace.slug} sandbox ${issuanceId.replaceAll('-', '').slice(-12)}`;
    await h.sql`insert into workspace.sandbox_issuances (id, workspace_id, name, requested_by) values (${issuanceId}, ${t.workspace.id}, ${name}, ${t.admin.id})`;
    const minted = await sendCommand(h.nats.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId: t.workspace.id, name });
    const hook = await sendWebhookCommand(h.nats.bus, WebhookCommands.create, {
      owner: { platformId: minted.platformId },
      url: 'http://127.0.0.1:9/lost',
      eventTypes: ['transaction.created'],
    });
    await h.sql`insert into workspace.remote_tasks (id, kind, payload, workspace_id)
      values (${uuidv7()}, 'sandbox.reconcile-issuance', ${JSON.stringify({ issuanceId, workspaceId: t.workspace.id, name })}::jsonb, ${t.workspace.id})`;

    await until('the issuance abandoned', async () => {
      const [row] = await h.sql`select status from workspace.sandbox_issuances where id = ${issuanceId}`;
      return row?.status === 'abandoned';
    });
    expect((await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(minted.apiKey) })).status).toBe(401);
    await until('its webhooks deactivated', async () => {
      const [sub] = await h.sql`select is_active from webhooks.subscriptions where id = ${hook.id}`;
      return sub?.is_active === false;
    });
  });

  it('an issuance recorded normally is left alone by its reconciliation', async () => {
    const t = await newTenant(h, world);
    const credential = await issued(t.base, t.admin.token);
    const [reconcile] =
      await h.sql`select status from workspace.remote_tasks where workspace_id = ${t.workspace.id} and kind = 'sandbox.reconcile-issuance'`;
    expect(reconcile?.status).toBe('done');
    expect((await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(credential.apiKey) })).status).toBe(200);
  });
});
