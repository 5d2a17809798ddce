import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigError } from '@holdfast/config';
import { connectBus, publishEvent, setUpNats } from '@holdfast/messaging';
import { domainEvent, fileFixture, freePort, itRefusesToStart, readinessOf, startTestService, testLogger } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createDispatcherService, dispatcherConfigFrom } from '../../src/index.js';

const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const service = fileFixture(() =>
  startTestService({ name: 'webhook-dispatcher', configFrom: dispatcherConfigFrom, create: createDispatcherService }),
);
const reader = fileFixture(async () => {
  const sql = postgres(service.db.url, { max: 1 });
  return { sql, stop: () => sql.end() };
});

describe('webhook-dispatcher process', () => {
  it('is ready when PostgreSQL and NATS answer, and serves metrics', async () => {
    expect((await readinessOf(service.url)).body).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok' } });
    expect((await request(`${service.url}/metrics`)).statusCode).toBe(200);
  });

  it('takes each domain event into its own schema once, however often it is published', async () => {
    const event = domainEvent(
      'transaction.created',
      { platformId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff' },
      { transaction: { id: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11', status: 'pending' } },
    );
    await publishEvent(service.nats.bus, event);
    await publishEvent(service.nats.bus, event);
    await expect
      .poll(async () => (await reader.sql`select id, type, platform_id from webhooks.received_events`).length, { timeout: 5000 })
      .toBe(1);
    const [row] = await reader.sql`select id, type, platform_id from webhooks.received_events`;
    expect(row).toEqual({ id: event.id, type: 'transaction.created', platform_id: event.platformId });
  });
});

describe('webhook-dispatcher configuration', () => {
  it('requires DATA_ENCRYPTION_KEY outside local and checks the new variables', () => {
    expect(() => dispatcherConfigFrom({ APP_ENV: 'production' })).toThrow(/DATA_ENCRYPTION_KEY: is required when APP_ENV is production/);
    expect(() => dispatcherConfigFrom({ WEBHOOK_CONCURRENCY: '0' })).toThrow(/WEBHOOK_CONCURRENCY: must be an integer from 1 to 1000/);
    expect(() => dispatcherConfigFrom({ WEBHOOK_SUBSCRIPTION_CONCURRENCY: 'many' })).toThrow(/WEBHOOK_SUBSCRIPTION_CONCURRENCY/);
    const config = dispatcherConfigFrom({});
    expect(config).toMatchObject({
      WEBHOOK_TIMEOUT_MS: 30_000,
      WEBHOOK_CIRCUIT_THRESHOLD: 10,
      circuitCooldownMs: 60_000,
      WEBHOOK_CONCURRENCY: 50,
      WEBHOOK_SUBSCRIPTION_CONCURRENCY: 10,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      // Unset, the drain outlasts the longest attempt by 5 s.
      shutdownTimeoutMs: 35_000,
    });
  });

  it('refuses a SHUTDOWN_TIMEOUT that would cut an attempt in flight, in one line', () => {
    expect(dispatcherConfigFrom({ WEBHOOK_TIMEOUT_MS: '2000' }).shutdownTimeoutMs).toBe(7_000);
    expect(dispatcherConfigFrom({ SHUTDOWN_TIMEOUT: '31s' }).shutdownTimeoutMs).toBe(31_000);
    for (const [shutdown, timeout] of [
      ['20s', '30000'],
      ['30s', '30000'],
    ]) {
      try {
        dispatcherConfigFrom({ SHUTDOWN_TIMEOUT: shutdown, WEBHOOK_TIMEOUT_MS: timeout });
        expect.unreachable();
      } catch (error) {
        expect((error as ConfigError).problems).toEqual([
          `SHUTDOWN_TIMEOUT: must be longer than WEBHOOK_TIMEOUT_MS (30000 ms), or an attempt cut by a shutdown is sent again (got "${shutdown}")`,
        ]);
      }
    }
  });
});

describe('webhook-dispatcher start-up', () => {
  itRefusesToStart('webhook-dispatcher', main, [
    {
      refuses: 'a malformed retry schedule with one clear line',
      env: { APP_ENV: 'local', WEBHOOK_RETRY_SCHEDULE: '5s,soon' },
      problems: ['WEBHOOK_RETRY_SCHEDULE: must be comma-separated durations such as 5s,5m,30m,2h (got "5s,soon")'],
    },
  ]);
});

describe('webhook-dispatcher started before NATS', () => {
  it('waits answering ready 503 (naming nats), becomes ready once NATS answers, and exits 0 on SIGTERM', async () => {
    const [port, natsPort] = [await freePort(), await freePort()];
    const store = mkdtempSync(join(tmpdir(), 'hf-nats-'));
    const child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        APP_ENV: 'local',
        DATABASE_URL: service.db.url,
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        NATS_SUBJECT_PREFIX: 'waitfornats.',
        HOST: '127.0.0.1',
        DISPATCHER_PORT: String(port),
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Refused connections while the process is still loading count as not answering yet.
    const ready = () => readinessOf(`http://127.0.0.1:${port}`).catch(() => ({ status: 0, body: { failing: undefined } }));
    let nats: ReturnType<typeof spawn> | undefined;
    try {
      await expect.poll(async () => (await ready()).status, { timeout: 20_000 }).toBe(503);
      expect((await ready()).body.failing).toContain('nats');
      expect((await request(`http://127.0.0.1:${port}/health`)).statusCode).toBe(200);
      expect(child.exitCode).toBeNull();

      nats = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', store], { stdio: 'ignore' });
      // Still 503 until the NATS setup has made its durable consumer (it only binds to it), then ready.
      await expect.poll(async () => (await ready()).body.failing, { timeout: 20_000 }).toContain('nats');
      const connectSetup = () =>
        connectBus({ url: `nats://127.0.0.1:${natsPort}`, name: 'nats-setup', prefix: 'waitfornats.', logger: testLogger('nats-setup') });
      let setup: Awaited<ReturnType<typeof connectSetup>> | undefined;
      await expect
        .poll(async () => (setup ??= await connectSetup().catch(() => undefined)), { timeout: 20_000, interval: 250 })
        .toBeDefined();
      if (!setup) throw new Error('NATS never answered');
      await setUpNats(setup);
      await setup.close();
      await expect.poll(async () => (await ready()).status, { timeout: 30_000, interval: 250 }).toBe(200);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      nats?.kill('SIGKILL');
      rmSync(store, { recursive: true, force: true });
    }
  }, 90_000);
});
