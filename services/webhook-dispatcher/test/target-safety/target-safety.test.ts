import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { WebhookCommands } from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { tableResolver } from '@holdfast/outbound';
import { POLICY_TEST_HOSTS } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTargetPolicy } from '../../src/modules/target-safety/service.js';
import { startTestDispatcher, type TestDispatcher } from '../support/dispatcher.js';
import { transactionEvent } from '../support/events.js';

// SSRF safety with APP_ENV=production: refused at creation (the URL as written and what its host
// resolves to) and again on every connection, on the address actually connected to. Host names
// resolve through an injected resolver, so that a name can point at a public address when the
// subscription is created and at 127.0.0.1 when the delivery connects (DNS rebinding).

const dns = new Map<string, string[]>([
  ...POLICY_TEST_HOSTS,
  ['v6-loopback.example', ['::1']],
  ['mapped.example', ['::ffff:127.0.0.1']],
  ['nat64.example', ['64:ff9b::a00:1']],
  ['rebind.example', ['93.184.216.34']],
]);
const resolver = tableResolver(dns);

let dispatcher: TestDispatcher;
/** A TCP server on loopback that only counts connections: any connection at all is a failure of the policy. */
let target: Server;
let connections = 0;
let targetPort = 0;

beforeAll(async () => {
  target = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetPort = (target.address() as { port: number }).port;
  dispatcher = await startTestDispatcher(
    {
      APP_ENV: 'production',
      NATS_USER: 'webhook-dispatcher',
      NATS_PASSWORD: 'nats-test-password',
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_RETRY_SCHEDULE: '50ms',
      WEBHOOK_TIMEOUT_MS: '2000',
    },
    { resolver },
  );
});

afterAll(async () => {
  await dispatcher?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

const create = (url: string, ipWhitelist?: string[]) =>
  dispatcher.send(WebhookCommands.create, {
    owner: { platformId: randomUUID() },
    url,
    eventTypes: ['transaction.created'],
    ...(ipWhitelist ? { ipWhitelist } : {}),
  });

describe('at creation, outside local', () => {
  it.each([
    ['http://public.example/hook', 'must use https'],
    ['https://127.0.0.1/hook', 'must not point to a loopback address (127.0.0.1) outside local'],
    ['https://[::1]:8443/hook', 'must not point to a loopback address (::1) outside local'],
    ['https://10.0.0.8/hook', 'must not point to a private address (10.0.0.8) outside local'],
    ['https://192.168.1.1/hook', 'must not point to a private address (192.168.1.1) outside local'],
    ['https://169.254.169.254/latest/meta-data', 'must not point to a link-local address (169.254.169.254) outside local'],
    ['https://[fe80::1]/hook', 'must not point to a link-local address (fe80::1) outside local'],
    ['https://0.0.0.0/hook', 'must not point to a unspecified address (0.0.0.0) outside local'],
    ['https://internal.example/hook', 'must not point to a private address: internal.example resolves to 10.1.2.3, refused outside local'],
    [
      'https://metadata.example/hook',
      'must not point to a link-local address: metadata.example resolves to 169.254.169.254, refused outside local',
    ],
    ['https://mixed.example/hook', 'must not point to a loopback address: mixed.example resolves to 127.0.0.1, refused outside local'],
    [
      'https://v6-loopback.example/hook',
      'must not point to a loopback address: v6-loopback.example resolves to ::1, refused outside local',
    ],
    [
      'https://mapped.example/hook',
      'must not point to a loopback address: mapped.example resolves to ::ffff:127.0.0.1, refused outside local',
    ],
    [
      'https://nat64.example/hook',
      'must not point to a private (embedded 10.0.0.1) address: nat64.example resolves to 64:ff9b::a00:1, refused outside local',
    ],
    ['https://foo.localhost/hook', 'must not point to a loopback host (foo.localhost) outside local'],
  ])('refuses %s', async (url, reason) => {
    const before = await dispatcher.sql`select count(*)::int as n from webhooks.subscriptions`;
    await expect(create(url)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: { errors: [{ field: 'url', reason }] },
    });
    expect(await dispatcher.sql`select count(*)::int as n from webhooks.subscriptions`).toEqual(before);
  });

  it('refuses a host name the system resolves to 127.0.0.1 (localhost, through the real resolver)', async () => {
    const policy = createTargetPolicy({ appEnv: 'production', connectTimeoutMs: 1000 });
    expect(await policy.checkUrl('https://localhost:8443/hook')).toEqual([
      {
        field: 'url',
        reason: expect.stringMatching(
          /^must not point to a loopback address: localhost resolves to (127\.0\.0\.1|::1), refused outside local$/,
        ),
      },
    ]);
    await policy.close();
  });

  it('accepts a public https URL, and a name that does not resolve yet', async () => {
    expect((await create('https://public.example/hook')).url).toBe('https://public.example/hook');
    expect((await create('https://not-yet-in-dns.example/hook')).url).toBe('https://not-yet-in-dns.example/hook');
  });

  it('checks an update the same way', async () => {
    const created = await create('https://public.example/hook');
    const owner = { platformId: created.platformId! };
    await expect(
      dispatcher.send(WebhookCommands.update, { owner, subscriptionId: created.id, url: 'https://internal.example/x' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    expect((await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).url).toBe('https://public.example/hook');
  });

  it('allows http and still refuses private targets in staging', async () => {
    const staging = createTargetPolicy({ appEnv: 'staging', connectTimeoutMs: 1000, resolver });
    expect(await staging.checkUrl('http://public.example/hook')).toEqual([]);
    expect(await staging.checkUrl('http://internal.example/hook')).toHaveLength(1);
    const local = createTargetPolicy({ appEnv: 'local', connectTimeoutMs: 1000, resolver });
    expect(await local.checkUrl('http://internal.example/hook')).toEqual([]);
    expect(await local.checkUrl('http://127.0.0.1:3000/hook')).toEqual([]);
    await Promise.all([staging.close(), local.close()]);
  });
});

describe('at connect time, outside local', () => {
  async function lastLog(subscriptionId: string, platformId: string) {
    const { logs } = await dispatcher.send(WebhookCommands.deliveryLogs, { owner: { platformId }, subscriptionId });
    return logs[0];
  }

  it('refuses a name that resolved to a public address at creation and to 127.0.0.1 at delivery (DNS rebinding)', async () => {
    const created = await create(`https://rebind.example:${targetPort}/hook`);
    dns.set('rebind.example', ['127.0.0.1']);
    await publishEvent(dispatcher.nats.bus, transactionEvent({ platformId: created.platformId }));
    await expect
      .poll(async () => (await lastLog(created.id, created.platformId!))?.errorMessage)
      .toBe('connection refused by policy: rebind.example: address 127.0.0.1 is loopback; only public addresses are allowed outside local');
    const log = await lastLog(created.id, created.platformId!);
    expect(log).toMatchObject({ success: false, statusCode: null });
    // Failed like any unreachable receiver: retried on the schedule, then given up.
    await expect
      .poll(async () => (await dispatcher.sql`select status from webhooks.deliveries where subscription_id = ${created.id}`)[0]?.status)
      .toBe('failed');
    expect(connections).toBe(0);
  });

  it('refuses an address literal that is not public, even when stored before the rules applied', async () => {
    const created = await create('https://public.example/hook');
    await dispatcher.sql`update webhooks.subscriptions set url = ${`https://127.0.0.1:${targetPort}/hook`} where id = ${created.id}`;
    await publishEvent(dispatcher.nats.bus, transactionEvent({ platformId: created.platformId }));
    await expect
      .poll(async () => (await lastLog(created.id, created.platformId!))?.errorMessage)
      .toBe('connection refused by policy: address 127.0.0.1 is loopback; only public addresses are allowed outside local');
    expect(connections).toBe(0);
  });

  it('refuses the test delivery the same way', async () => {
    dns.set('rebind-test.example', ['93.184.216.34']);
    const created = await create(`https://rebind-test.example:${targetPort}/hook`);
    dns.set('rebind-test.example', ['192.168.0.10', '127.0.0.1']);
    const result = await dispatcher.send(WebhookCommands.test, { owner: { platformId: created.platformId! }, subscriptionId: created.id });
    expect(result).toMatchObject({
      success: false,
      statusCode: null,
      errorMessage:
        'connection refused by policy: rebind-test.example: address 192.168.0.10 is private; only public addresses are allowed outside local',
    });
    expect(connections).toBe(0);
  });
});
