import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, type Harness, PASSWORD, type World } from '../support/harness.js';
import { principalTokens, startRouteContext, stopRouteContext } from '../support/route-context.js';
import { type Context, ROUTES } from '../support/route-table.js';

let h: Harness;
let world: World;
let ctx: Context;

beforeAll(async () => {
  ctx = await startRouteContext();
  ({ h, world } = ctx);
});
afterAll(async () => stopRouteContext(ctx));

async function entryOfRequest(requestId: string) {
  return h.sql<
    {
      action: string;
      success: boolean;
      user_id: string | null;
      ip_address: string | null;
      user_agent: string | null;
      error_message: string | null;
      metadata: Record<string, unknown>;
      changes: unknown;
      resource_id: string | null;
    }[]
  >`
    select * from workspace.audit_logs where metadata->>'requestId' = ${requestId}`;
}

const mutating = ROUTES.filter((r) => r.audit);
let n = 0;

describe('every mutating route leaves one audit entry', () => {
  it.each(mutating.map((r) => [`${r.method} ${r.route}`, r] as const))('%s: on success', async (_name, route) => {
    const principal = (['superAdmin', 'admin', 'client', 'customer'] as const).find((p) => route.expect[p] < 300)!;
    const prepared = await route.prepare(ctx, principal);
    const token = prepared.tokens?.[principal] ?? principalTokens(ctx)[principal];
    n += 1;
    const requestId = `audit-ok-${n}`;
    const answer = await h.call(route.method, prepared.path, {
      token,
      body: prepared.body,
      form: prepared.form,
      headers: { 'x-request-id': requestId, 'user-agent': 'holdfast-audit-test/1.0' },
    });
    expect(answer.status, answer.text).toBe(route.expect[principal]);
    await prepared.after?.(token);
    const entries = await entryOfRequest(requestId);
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry).toMatchObject({ action: route.audit, success: true, user_agent: 'holdfast-audit-test/1.0', error_message: null });
    expect(entry?.ip_address).toMatch(/127\.0\.0\.1/);
    // The trail keeps the path without its query string.
    expect(entry?.metadata).toMatchObject({ requestId, method: route.method, path: prepared.path.split('?')[0] });
    // Secrets of the request never reach the trail.
    const text = JSON.stringify(entry);
    const secrets = [
      PASSWORD,
      'An0ther!Password',
      (prepared.body as { refreshToken?: string })?.refreshToken,
      (prepared.body as { code?: string })?.code,
      token,
    ];
    for (const secret of secrets.filter(Boolean)) expect(text).not.toContain(secret);
    // A user acted: its id is on the entry (public routes and customers are no users).
    if (route.expect.anonymous >= 400 && principal !== 'customer') {
      expect(entry?.user_id).toBeTruthy();
    }
  });

  it.each(mutating.map((r) => [`${r.method} ${r.route}`, r] as const))('%s: when refused', async (_name, route) => {
    const prepared = await route.prepare(ctx, 'anonymous');
    n += 1;
    const requestId = `audit-refused-${n}`;
    // Public routes are refused for their body, the others for the missing token.
    const publicRoute = route.expect.anonymous < 400;
    const answer = await h.call(route.method, prepared.path, {
      body: publicRoute ? {} : prepared.body,
      form: publicRoute ? undefined : prepared.form,
      headers: { 'x-request-id': requestId },
    });
    expect(answer.status).toBe(publicRoute ? 400 : 401);
    const [entry] = await entryOfRequest(requestId);
    expect(entry).toMatchObject({ action: route.audit, success: false, user_id: null });
    expect(entry?.error_message).toBeTruthy();
    expect(entry?.metadata).toMatchObject({ statusCode: answer.status, errorCode: answer.body.error.code });
  });
});

describe('reading the trail', () => {
  it('filters by action (exact or prefix), outcome, resource, time and text; newest first', async () => {
    const token = world.superAdmin.token;
    const exact = await h.call('GET', '/api/v1/audit-logs?action=user.create&limit=100', { token });
    expect(exact.body.data.length).toBeGreaterThanOrEqual(3);
    expect(exact.body.data.every((e: { action: string }) => e.action === 'user.create')).toBe(true);
    const prefix = await h.call('GET', '/api/v1/audit-logs?action=auth.*&limit=100', { token });
    expect(new Set(prefix.body.data.map((e: { action: string }) => e.action.split('.')[0]))).toEqual(new Set(['auth']));
    const failed = await h.call('GET', '/api/v1/audit-logs?success=false&limit=100', { token });
    expect(failed.body.data.length).toBeGreaterThan(0);
    expect(failed.body.data.every((e: { success: boolean }) => !e.success)).toBe(true);
    const byResource = await h.call('GET', `/api/v1/audit-logs?resourceType=workspace&resourceId=${world.w1.id}`, { token });
    expect(byResource.body.data.map((e: { action: string }) => e.action)).toContain('workspace.create');
    const times = exact.body.data.map((e: { createdAt: string }) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const future = await h.call('GET', `/api/v1/audit-logs?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, {
      token,
    });
    expect(future.body.data).toEqual([]);
    expect(future.body.meta.pagination).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });
    const search = await h.call('GET', `/api/v1/audit-logs?search=${encodeURIComponent(world.w1.slug)}`, { token });
    expect(search.body.data.length).toBeGreaterThan(0);
    const bad = await h.call('GET', '/api/v1/audit-logs?action=DROP%20TABLE&from=yesterday&success=maybe', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['action', 'from', 'success']);
  });

  it("keeps an ADMIN to its workspace's entries", async () => {
    const mine = await h.call('GET', '/api/v1/audit-logs?limit=100', { token: world.adminW1.token });
    expect(mine.body.data.length).toBeGreaterThan(0);
    expect(new Set(mine.body.data.map((e: { workspaceId: string }) => e.workspaceId))).toEqual(new Set([world.w1.id]));
    expect((await h.call('GET', `/api/v1/audit-logs?workspaceId=${world.w2.id}`, { token: world.adminW1.token })).status).toBe(403);
    const [w2Entry] = await h.sql<{ id: string }[]>`select id from workspace.audit_logs where workspace_id = ${world.w2.id} limit 1`;
    expect((await h.call('GET', `/api/v1/audit-logs/${w2Entry!.id}`, { token: world.adminW1.token })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/audit-logs/${w2Entry!.id}`, { token: world.adminW2.token })).body.data.id).toBe(w2Entry!.id);
    const perWorkspace = await h.call('GET', `/api/v1/workspaces/${world.w1.id}/audit-logs?action=workspace.*`, {
      token: world.adminW1.token,
    });
    expect(perWorkspace.body.data.every((e: { workspaceId: string }) => e.workspaceId === world.w1.id)).toBe(true);
    expect(
      (await h.call('GET', '/api/v1/workspaces/00000000-0000-4000-8000-000000000000/audit-logs', { token: world.superAdmin.token })).status,
    ).toBe(404);
    const perUser = await h.call('GET', `/api/v1/users/${world.clientW1.id}/audit-logs`, { token: world.adminW1.token });
    expect(perUser.body.data.every((e: { userId: string }) => e.userId === world.clientW1.id)).toBe(true);
    expect(perUser.body.data.length).toBeGreaterThan(0);
  });

  it('exports CSV with formula cells made inert, and JSON; says when it was truncated', async () => {
    await h.call('PUT', '/api/v1/users/me', {
      token: world.adminW1.token,
      body: { firstName: 'Formula' },
      headers: { 'user-agent': '=HYPERLINK("http://evil.test")' },
    });
    const csv = await h.call('GET', '/api/v1/audit-logs/export?action=user.profile_update', { token: world.adminW1.token });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="audit-logs-.+\.csv"$/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,createdAt,userId,workspaceId,action,resourceType,resourceId,success,errorMessage,details,changes,ipAddress,userAgent,metadata',
    );
    expect(lines.length - 1).toBe(Number(csv.headers['x-export-count']));
    expect(csv.text).toContain(`"'=HYPERLINK(""http://evil.test"")"`);
    const json = await h.call('GET', '/api/v1/audit-logs/export?format=json&limit=1', { token: world.superAdmin.token });
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['x-export-truncated']).toBe('true');
    expect(json.body).toHaveLength(1);
    expect(json.body[0]).toHaveProperty('action');
    expect((await h.call('GET', '/api/v1/audit-logs/export?format=xml', { token: world.superAdmin.token })).status).toBe(400);
  });

  it('counts entries by outcome, action, resource type, day and user', async () => {
    const stats = await h.call('GET', '/api/v1/audit-logs/stats', { token: world.superAdmin.token });
    const list = await h.call('GET', '/api/v1/audit-logs', { token: world.superAdmin.token });
    expect(stats.body.data.total).toBe(list.body.meta.pagination.total);
    expect(stats.body.data.succeeded + stats.body.data.failed).toBe(stats.body.data.total);
    const sum = (rows: { total: number }[]) => rows.reduce((s, r) => s + r.total, 0);
    expect(sum(stats.body.data.byAction)).toBe(stats.body.data.total);
    expect(sum(stats.body.data.byResourceType)).toBe(stats.body.data.total);
    expect(sum(stats.body.data.byDay)).toBe(stats.body.data.total);
    expect(stats.body.data.topUsers.length).toBeLessThanOrEqual(10);
    const failedLogins = await h.call('GET', '/api/v1/audit-logs/stats?action=auth.login&success=false', { token: world.superAdmin.token });
    expect(failedLogins.body.data.succeeded).toBe(0);
    const scoped = await h.call('GET', '/api/v1/audit-logs/stats', { token: world.adminW2.token });
    const w2Total = await h.sql`select count(*)::int as n from workspace.audit_logs where workspace_id = ${world.w2.id}`;
    expect(scoped.body.data.total).toBe(w2Total[0]?.n);
  });

  it('answers 404 for an unknown entry', async () => {
    expect((await h.call('GET', '/api/v1/audit-logs/00000000-0000-4000-8000-000000000000', { token: world.superAdmin.token })).status).toBe(
      404,
    );
    const [entry] = await auditEntries(h, { action: 'workspace.create' });
    const one = await h.call('GET', `/api/v1/audit-logs/${entry!.id}`, { token: world.superAdmin.token });
    expect(one.body.data).toMatchObject({ id: entry!.id, action: 'workspace.create', success: true });
  });
});
