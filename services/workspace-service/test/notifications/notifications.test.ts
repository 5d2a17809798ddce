import { randomUUID } from 'node:crypto';
import { type DomainEvent, DomainEvent as DomainEventSchema, eventSubject } from '@holdfast/contracts';
import { publishChecked, publishEvent } from '@holdfast/messaging';
import { domainEvent } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser } from '../support/fixtures.js';
import { auditEntries, buildWorld, createWorkspace, type Harness, startHarness, type World } from '../support/harness.js';

// Real DomainEvents published on this file's NATS prefix, consumed by the service's durable
// consumer; two tenants, members with different preferences, an inactive member, an operator.
let h: Harness;
let world: World;
let mutedClient: { id: string; token: string };
let eagerClient: { id: string; token: string };
let suspended: { id: string };
let w2Platform: string;

const escrowed = (workspaceId: string | null, platformId: string | null = null, amount = '250.00'): DomainEvent =>
  domainEvent(
    'transaction.escrowed',
    { platformId, workspaceId: workspaceId ?? undefined },
    {
      transaction: { id: randomUUID(), status: 'escrowed', amount, currency: 'USDC', blockchainNetwork: 'base-sepolia' },
      escrowAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      txHash: `0x${'ab'.repeat(32)}`,
    },
  );

const created = (workspaceId: string): DomainEvent =>
  domainEvent(
    'transaction.created',
    { workspaceId },
    { transaction: { id: randomUUID(), status: 'pending', amount: '10.5', currency: 'USDC' } },
  );

const disputeOpened = (workspaceId: string): DomainEvent =>
  domainEvent(
    'dispute.created',
    { workspaceId },
    { dispute: { id: randomUUID(), transactionId: randomUUID(), status: 'open', currentTier: 'tier_1_smart_contract' } },
  );

async function recipientsOf(eventId: string): Promise<string[]> {
  const rows = await h.sql<{ user_id: string }[]>`select user_id from workspace.notifications where event_id = ${eventId} order by user_id`;
  return rows.map((r) => r.user_id);
}

/** Waits until the consumer has handled an event (it handles them in stream order, one at a time). */
async function handled(event: DomainEvent, expectedRecipients: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await recipientsOf(event.id)).length < expectedRecipients) {
    if (Date.now() > deadline) throw new Error(`event ${event.type} ${event.id} was not notified`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Publishes a marker that reaches adminW1 and waits for it: every event published before it was handled. */
async function drained(): Promise<void> {
  const marker = disputeOpened(world.w1.id);
  await publishEvent(h.bus, marker);
  await handled(marker, 1);
}

beforeAll(async () => {
  h = await startHarness();
  world = await buildWorld(h);
  const muted = await insertUser(h, { role: 'CLIENT', workspaceId: world.w1.id, passwordHashOf: world.clientW1.id });
  const eager = await insertUser(h, { role: 'CLIENT', workspaceId: world.w1.id, passwordHashOf: world.clientW1.id });
  mutedClient = { id: muted.id, token: muted.token };
  eagerClient = { id: eager.id, token: eager.token };
  const off = await h.call('PATCH', '/api/v1/notifications/preferences', {
    token: muted.token,
    body: { events: { 'transaction.escrowed': false } },
  });
  expect(off.status, off.text).toBe(200);
  const on = await h.call('PATCH', '/api/v1/notifications/preferences', {
    token: eager.token,
    body: { events: { 'transaction.created': true } },
  });
  expect(on.status, on.text).toBe(200);
  suspended = await insertUser(h, { role: 'ADMIN', workspaceId: world.w1.id, passwordHashOf: world.clientW1.id });
  await h.sql`update workspace.users set status = 'suspended' where id = ${suspended.id}`;
  w2Platform = randomUUID();
  await h.sql`insert into workspace.platform_mappings (id, workspace_id, platform_id, kind, name)
    values (gen_random_uuid(), ${world.w2.id}, ${w2Platform}, 'sandbox', 'w2 sandbox')`;
});
afterAll(async () => h?.stop());

describe('a payment event producing a notification for the right users only', () => {
  it("notifies the event's workspace's active members whose preferences let it through, once per (event, user)", async () => {
    const event = escrowed(world.w1.id);
    await publishEvent(h.bus, event);
    // adminW1, clientW1 and the eager client (defaults keep escrowed on); not the muted client,
    // not the suspended ADMIN, not W2's ADMIN, not the SUPER_ADMIN (a member of no workspace).
    await handled(event, 3);
    await drained();
    expect(await recipientsOf(event.id)).toEqual([world.adminW1.id, world.clientW1.id, eagerClient.id].sort());

    const [row] = await h.sql`select * from workspace.notifications where event_id = ${event.id} and user_id = ${world.clientW1.id}`;
    expect(row).toMatchObject({ type: 'transaction', priority: 'normal', title: 'Payment escrowed', is_read: false, read_at: null });
    const transactionId = (event.data as { transaction: { id: string } }).transaction.id;
    expect(row?.message).toBe(`The funds of payment ${transactionId.slice(0, 8)} of 250.00 USDC are held in escrow.`);
    expect(row?.metadata).toMatchObject({
      eventId: event.id,
      eventType: 'transaction.escrowed',
      workspaceId: world.w1.id,
      amount: '250.00',
      currency: 'USDC',
    });

    // The same event again (a relay re-publishing it after the de-duplication window: another
    // message id, so the stream really delivers it twice) creates nothing.
    const again = await publishChecked(h.bus, eventSubject(event.type), DomainEventSchema, event, `${event.id}-republished`);
    expect(again.duplicate).toBe(false);
    await drained();
    const [count] = await h.sql<{ n: number }[]>`select count(*)::int as n from workspace.notifications where event_id = ${event.id}`;
    expect(count?.n).toBe(3);
  });

  it('follows per-user preferences: a type off by default reaches only those who turned it on', async () => {
    const event = created(world.w1.id);
    await publishEvent(h.bus, event);
    await handled(event, 1);
    await drained();
    expect(await recipientsOf(event.id)).toEqual([eagerClient.id]);
    const [row] = await h.sql`select priority, message from workspace.notifications where event_id = ${event.id}`;
    expect(row?.priority).toBe('low');
    expect(row?.message).toMatch(/^Payment [0-9a-f]{8} of 10\.5 USDC was created\.$/);
  });

  it("reaches no one here for a third workspace's event, nor for an event of no workspace", async () => {
    const w3 = await createWorkspace(h, world.superAdmin.token, 'Tenant Three');
    const w3Member = await insertUser(h, { role: 'ADMIN', workspaceId: w3.id, passwordHashOf: world.clientW1.id });
    const third = escrowed(w3.id);
    const unknown = escrowed(randomUUID());
    const orphan = escrowed(null, randomUUID());
    for (const event of [third, unknown, orphan]) await publishEvent(h.bus, event);
    await handled(third, 1);
    await drained();
    expect(await recipientsOf(third.id)).toEqual([w3Member.id]);
    expect(await recipientsOf(unknown.id)).toEqual([]);
    expect(await recipientsOf(orphan.id)).toEqual([]);
    // Nothing of those reached W1's or W2's users.
    const here = [world.adminW1.id, world.clientW1.id, mutedClient.id, eagerClient.id, world.adminW2.id, world.superAdmin.id];
    const leaked = await h.sql`select id from workspace.notifications
      where event_id in ${h.sql([third.id, unknown.id, orphan.id])} and user_id in ${h.sql(here)}`;
    expect(leaked).toEqual([]);
  });

  it('finds the workspace of an event that names only its platform (a platform mapping)', async () => {
    const event = escrowed(null, w2Platform);
    await publishEvent(h.bus, event);
    await handled(event, 1);
    expect(await recipientsOf(event.id)).toEqual([world.adminW2.id]);
  });
});

describe('GET /notifications and the routes on one notification', () => {
  it('lists your own, newest first, with unreadCount; filters on unread; pages', async () => {
    const user = await insertUser(h, { role: 'CLIENT', workspaceId: world.w2.id, passwordHashOf: world.clientW1.id });
    const events = [escrowed(world.w2.id, null, '1.00'), escrowed(world.w2.id, null, '2.00'), disputeOpened(world.w2.id)];
    for (const event of events) await publishEvent(h.bus, event);
    await handled(events[2]!, 2);
    await drained();

    const all = await h.call('GET', '/api/v1/notifications?limit=2', { token: user.token });
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.unreadCount).toBe(3);
    expect(all.body.meta.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(all.body.data.notifications.map((n: { title: string }) => n.title)).toEqual(['Dispute opened', 'Payment escrowed']);
    expect(all.body.data.notifications[0]).toMatchObject({
      userId: user.id,
      type: 'dispute',
      priority: 'high',
      isRead: false,
      readAt: null,
    });
    const second = await h.call('GET', '/api/v1/notifications?limit=2&page=2', { token: user.token });
    expect(second.body.data.notifications).toHaveLength(1);
    expect(second.body.data.notifications[0].message).toContain('1.00 USDC');

    const id = all.body.data.notifications[1].id as string;
    const read = await h.call('PATCH', `/api/v1/notifications/${id}/read`, { token: user.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject({ id, isRead: true });
    const readAt = read.body.data.readAt as string;
    expect(Date.parse(readAt)).not.toBeNaN();
    const twice = await h.call('PATCH', `/api/v1/notifications/${id}/read`, { token: user.token });
    expect(twice.body.data.readAt).toBe(readAt);

    const unread = await h.call('GET', '/api/v1/notifications?unread=true', { token: user.token });
    expect(unread.body.data.notifications).toHaveLength(2);
    expect(unread.body.data.unreadCount).toBe(2);
    const readOnly = await h.call('GET', '/api/v1/notifications?unread=false', { token: user.token });
    expect(readOnly.body.data.notifications.map((n: { id: string }) => n.id)).toEqual([id]);
    expect(readOnly.body.data.unreadCount).toBe(2);

    const one = await h.call('GET', `/api/v1/notifications/${id}`, { token: user.token });
    expect(one.body.data).toEqual(read.body.data);

    const allRead = await h.call('POST', '/api/v1/notifications/mark-all-read', { token: user.token });
    expect(allRead.status).toBe(200);
    expect(allRead.body.data).toEqual({ message: 'Marked 2 notifications read', count: 2 });
    const [state] = await h.sql<
      { unread: number }[]
    >`select count(*) filter (where not is_read)::int as unread from workspace.notifications where user_id = ${user.id}`;
    expect(state?.unread).toBe(0);
    expect((await h.call('POST', '/api/v1/notifications/mark-all-read', { token: user.token })).body.data.count).toBe(0);

    const deleted = await h.call('DELETE', '/api/v1/notifications', { token: user.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ message: 'Deleted 3 notifications', count: 3 });
    const [left] = await h.sql<{ n: number }[]>`select count(*)::int as n from workspace.notifications where user_id = ${user.id}`;
    expect(left?.n).toBe(0);
    // adminW2's copies of the same events are untouched.
    expect(await recipientsOf(events[0]!.id)).toEqual([world.adminW2.id]);
    const [audit] = await auditEntries(h, { action: 'notification.delete_all', userId: user.id });
    expect(audit).toMatchObject({ success: true, details: 'Deleted 3 notifications' });
  });

  it("answers 404 for another user's notification, even in the same workspace, and changes nothing", async () => {
    const event = escrowed(world.w1.id);
    await publishEvent(h.bus, event);
    await handled(event, 3);
    const [mine] = await h.sql<
      { id: string }[]
    >`select id from workspace.notifications where event_id = ${event.id} and user_id = ${world.clientW1.id}`;
    for (const token of [world.adminW1.token, world.adminW2.token, world.superAdmin.token]) {
      expect((await h.call('GET', `/api/v1/notifications/${mine!.id}`, { token })).status).toBe(404);
      const read = await h.call('PATCH', `/api/v1/notifications/${mine!.id}/read`, { token });
      expect(read.status).toBe(404);
      expect(read.body.error.code).toBe('NOT_FOUND');
    }
    const [row] = await h.sql`select is_read from workspace.notifications where id = ${mine!.id}`;
    expect(row?.is_read).toBe(false);
    const list = await h.call('GET', '/api/v1/notifications?limit=100', { token: world.adminW2.token });
    expect(list.body.data.notifications.every((n: { userId: string }) => n.userId === world.adminW2.id)).toBe(true);
    expect(list.text).not.toContain(world.w1.id);
  });

  it('refuses bad input', async () => {
    const token = world.clientW1.token;
    const bad = await h.call('GET', '/api/v1/notifications?unread=maybe&limit=500', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'unread']);
    expect((await h.call('GET', '/api/v1/notifications/not-a-uuid', { token })).status).toBe(400);
    expect((await h.call('PATCH', '/api/v1/notifications/not-a-uuid/read', { token })).status).toBe(400);
    expect((await h.call('GET', '/api/v1/notifications')).status).toBe(401);
  });
});

describe('notification preferences', () => {
  it('start from the defaults, change per event type, go back to the default with null', async () => {
    const user = await insertUser(h, { role: 'ADMIN', workspaceId: world.w2.id, passwordHashOf: world.clientW1.id });
    const initial = await h.call('GET', '/api/v1/notifications/preferences', { token: user.token });
    expect(initial.status).toBe(200);
    expect(initial.body.data).toMatchObject({ userId: user.id, updatedAt: null });
    expect(initial.body.data.events).toEqual(initial.body.data.defaults);
    expect(initial.body.data.defaults['transaction.created']).toBe(false);
    expect(initial.body.data.defaults['transaction.failed']).toBe(true);

    const changed = await h.call('PATCH', '/api/v1/notifications/preferences', {
      token: user.token,
      body: { events: { 'transaction.created': true, 'dispute.resolved': false } },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.events).toMatchObject({ 'transaction.created': true, 'dispute.resolved': false, 'transaction.failed': true });
    expect(changed.body.data.updatedAt).not.toBeNull();
    const [stored] = await h.sql`select events from workspace.notification_preferences where user_id = ${user.id}`;
    expect(stored?.events).toEqual({ 'transaction.created': true, 'dispute.resolved': false });

    const reset = await h.call('PATCH', '/api/v1/notifications/preferences', {
      token: user.token,
      body: { events: { 'transaction.created': null } },
    });
    expect(reset.body.data.events['transaction.created']).toBe(false);
    expect(reset.body.data.events['dispute.resolved']).toBe(false);
    const [audit] = await auditEntries(h, { action: 'notification.preferences_update', userId: user.id });
    expect(audit?.changes).toEqual({ 'events.transaction.created': { from: true, to: false } });

    // Someone else's preferences are not touched.
    expect((await h.call('GET', '/api/v1/notifications/preferences', { token: world.adminW2.token })).body.data.updatedAt).toBeNull();
  });

  it('refuses unknown event types, non-booleans and an empty change', async () => {
    const token = world.adminW1.token;
    const before = await h.sql`select * from workspace.notification_preferences where user_id = ${world.adminW1.id}`;
    const unknown = await h.call('PATCH', '/api/v1/notifications/preferences', {
      token,
      body: { events: { 'payment.sent': true, 'transaction.failed': 'yes' } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'events.payment.sent',
      'events.transaction.failed',
    ]);
    expect((await h.call('PATCH', '/api/v1/notifications/preferences', { token, body: { events: {} } })).status).toBe(400);
    expect((await h.call('PATCH', '/api/v1/notifications/preferences', { token, body: {} })).status).toBe(400);
    expect(await h.sql`select * from workspace.notification_preferences where user_id = ${world.adminW1.id}`).toEqual(before);
  });
});
