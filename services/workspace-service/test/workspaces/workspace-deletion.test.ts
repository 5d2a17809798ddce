import { uuidv7 } from '@holdfast/contracts';
import { until } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { auditEntries, type Json, worldPerFile } from '../support/harness.js';
import { bearer, callPayments, key, newTenant, paymentsToken } from '../support/integrations.js';

// Deleting a workspace is irreversible and committed first; payments then deactivates its
// platforms and the dispatcher its subscriptions, at once when they answer, and later (retried
// until they do) when they do not.

const { h, world } = worldPerFile({}, { peers: true });

/** A tenant with sandbox credentials, an OAuth token, a workspace webhook and a platform (v1) webhook. */
async function integratedTenant() {
  const t = await newTenant(h, world);
  const sandbox: Json = (await h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token })).body.data;
  const token = await paymentsToken(h, sandbox.oauthClient);
  const workspaceHook = await h.call('POST', `${t.base}/webhooks`, {
    token: t.admin.token,
    body: { url: 'http://127.0.0.1:9/ws', eventTypes: ['transaction.created'] },
  });
  const platformHook = await callPayments(h, 'POST', '/api/v1/webhooks', {
    headers: key(sandbox.apiKey),
    body: { url: 'http://127.0.0.1:9/platform', eventTypes: ['transaction.created'] },
  });
  expect([workspaceHook.status, platformHook.status]).toEqual([201, 201]);
  return { ...t, sandbox, token, hooks: [workspaceHook.body.data.id as string, platformHook.body.id as string] };
}

async function subscriptions(ids: string[]) {
  return h.sql<{ id: string; is_active: boolean; disabled_reason: string | null }[]>`
    select id, is_active, disabled_reason from webhooks.subscriptions where id in ${h.sql(ids)} order by id`;
}

const tasksOf = (workspaceId: string) =>
  h.sql<{ kind: string; status: string; attempts: number; last_error: string | null }[]>`
    select kind, status, attempts, last_error from workspace.remote_tasks where workspace_id = ${workspaceId} order by created_at, kind`;

/** Payments refuses the tenant's sandbox API key and its OAuth token (its instances drop their caches within a second). */
async function untilCredentialsRefused(t: { sandbox: Json; token: string }) {
  await until(
    'the key refused',
    async () => (await callPayments(h, 'GET', '/api/v1/auth/platform/me', { headers: key(t.sandbox.apiKey) })).status === 401,
  );
  await until(
    'the token refused',
    async () => (await callPayments(h, 'GET', '/api/v2/auth/platform/me', { headers: bearer(t.token) })).status === 401,
  );
}

describe('DELETE /workspaces/{id}', () => {
  it('deactivates the platforms and every subscription before it answers', async () => {
    const t = await integratedTenant();
    const res = await h.call('DELETE', t.base, { token: t.admin.token });
    expect(res.status).toBe(204);
    // Deactivated in payments' database when the answer comes; its instances drop their caches within a second.
    const [platform] = await h.sql`select is_active from payments.platforms where id = ${t.sandbox.platformId}`;
    expect(platform?.is_active).toBe(false);
    await untilCredentialsRefused(t);
    const subs = await until('every subscription inactive', async () => {
      const rows = await subscriptions(t.hooks);
      return rows.every((s) => !s.is_active) ? rows : undefined;
    });
    expect(subs.map((s) => s.disabled_reason)).toEqual([
      expect.stringMatching(/workspace was deleted/),
      expect.stringMatching(/workspace was deleted/),
    ]);
    await until('every task done', async () => (await tasksOf(t.workspace.id)).every((task) => task.status === 'done'));
    expect((await tasksOf(t.workspace.id)).map((task) => task.kind).sort()).toEqual([
      'payments.deactivate-workspace-platforms',
      'sandbox.reconcile-issuance',
      'webhooks.deactivate-owner',
      'webhooks.deactivate-owner',
      'webhooks.deactivate-owner',
    ]);
    const [entry] = await auditEntries(h, { action: 'workspace.delete', resourceId: t.workspace.id });
    expect(entry?.metadata).toMatchObject({ platformIds: [t.sandbox.platformId], remoteTaskIds: expect.any(Array) });
  });

  it('with payments and the dispatcher down: the deletion stands, and their deactivations happen once they are back', async () => {
    const t = await integratedTenant();
    await Promise.all([h.peers!.payments.stop(), h.peers!.dispatcher.stop()]);
    let started = false;
    try {
      const res = await h.call('DELETE', t.base, { token: t.admin.token });
      expect(res.status).toBe(204);
      expect(await h.sql`select id from workspace.workspaces where id = ${t.workspace.id}`).toEqual([]);
      // Owed, tried, not answered.
      const owed = await until('the tasks retried', async () => {
        const rows = (await tasksOf(t.workspace.id)).filter((task) => task.kind !== 'sandbox.reconcile-issuance');
        return rows.every((task) => task.status === 'pending' && task.attempts >= 1) ? rows : undefined;
      });
      expect(owed.map((task) => task.last_error)).toEqual(owed.map(() => expect.stringMatching(/UPSTREAM_UNAVAILABLE/)));
      expect((await h.sql`select is_active from payments.platforms where id = ${t.sandbox.platformId}`)[0]?.is_active).toBe(true);

      await Promise.all([h.peers!.payments.start(), h.peers!.dispatcher.start()]);
      started = true;
      await until('the platforms deactivated', async () => {
        const [row] = await h.sql`select is_active from payments.platforms where id = ${t.sandbox.platformId}`;
        return row?.is_active === false;
      });
      await untilCredentialsRefused(t);
      await until('every subscription inactive', async () => (await subscriptions(t.hooks)).every((s) => !s.is_active));
      await until('every task done', async () => (await tasksOf(t.workspace.id)).every((task) => task.status === 'done'));
    } finally {
      if (!started) await Promise.all([h.peers!.payments.start(), h.peers!.dispatcher.start()]);
    }
  });

  it('gives up on a command the other side can never accept, and counts it in the metrics', async () => {
    const workspaceId = uuidv7();
    await h.sql`insert into workspace.remote_tasks (id, kind, payload, workspace_id)
      values (${uuidv7()}, 'payments.deactivate-platform', ${JSON.stringify({ workspaceId, platformId: 'not-a-uuid' })}::jsonb, ${workspaceId})`;
    const [task] = await until('the task given up', async () => {
      const rows = await tasksOf(workspaceId);
      return rows[0]?.status === 'dead' ? rows : undefined;
    });
    expect(task?.last_error).toMatch(/does not match its contract/);
    const metrics = await h.call('GET', '/metrics');
    expect(metrics.text).toMatch(/workspace_remote_tasks\{status="dead"[^}]*\} 1\n/);
  });
});
