import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WebhookCommands, type WebhookOwner } from '@holdfast/contracts';
import { startForTest } from '@holdfast/http-kit';
import { publishEvent } from '@holdfast/messaging';
import { keyIdOf } from '@holdfast/secrets';
import {
  createTestBus,
  createTestDatabase,
  type Receiver,
  sendWebhookCommand,
  startReceiver,
  type TestBus,
  type TestDatabase,
  testLogger,
} from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcherService, dispatcherConfigFrom } from '../../src/index.js';
import { transactionEvent } from '../support/events.js';
import { verifyHexSignature } from '../support/verify.js';

// Rotating DATA_ENCRYPTION_KEY (docs/operations.md#rotating-data_encryption_key) with the real
// dispatcher and its real re-encrypt command: old values stay readable under the previous key, new
// ones are sealed with the new key, `reencrypt` moves the old ones, and then the old key can go.

const REENCRYPT = fileURLToPath(new URL('../../dist/reencrypt.js', import.meta.url));
const run = promisify(execFile);

let db: TestDatabase;
let nats: TestBus;
let sql: postgres.Sql;
let receiver: Receiver;
const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const kid = (key: string) => keyIdOf(Buffer.from(key, 'base64'));

async function instance(env: Record<string, string>) {
  const config = dispatcherConfigFrom({
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    WEBHOOK_RETRY_SCHEDULE: '100ms',
    ...env,
  });
  return startForTest(await createDispatcherService(config, testLogger('webhook-dispatcher'), { pollIntervalMs: 100 }));
}

beforeAll(async () => {
  [db, nats, receiver] = await Promise.all([createTestDatabase(), createTestBus(), startReceiver()]);
  sql = postgres(db.url, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end();
  await receiver?.close();
  await nats?.dispose();
  await db?.drop();
});

const sealedOf = async (id: string) =>
  (await sql<{ secret_sealed: string }[]>`select secret_sealed from webhooks.subscriptions where id = ${id}`)[0]!.secret_sealed;

/** Publishes an event for `owner` and checks the receiver got it signed with `secret`. */
async function deliveredSigned(owner: WebhookOwner & { platformId: string }, path: string, secret: string) {
  const before = receiver.received(path).length;
  await publishEvent(nats.bus, transactionEvent(owner));
  await expect.poll(() => receiver.received(path).length, { timeout: 15_000 }).toBe(before + 1);
  const request = receiver.received(path).at(-1)!;
  expect(verifyHexSignature(secret, request.body, request.headers)).toBe(true);
}

describe('rotating DATA_ENCRYPTION_KEY', () => {
  it('reads old values under the previous key, seals new ones with the new key, and reencrypt moves the old ones', async () => {
    const owner = { platformId: randomUUID() };
    const first = await instance({ DATA_ENCRYPTION_KEY: keyA });
    const old = await sendWebhookCommand(nats.bus, WebhookCommands.create, {
      owner,
      url: receiver.url('/old'),
      eventTypes: ['transaction.created'],
    });
    expect(await sealedOf(old.id)).toMatch(new RegExp(`^v1\\.${kid(keyA)}\\.`));
    await first.stop();

    // The new key writes, the old one still reads.
    const rotated = await instance({ DATA_ENCRYPTION_KEY: keyB, DATA_ENCRYPTION_KEYS_PREVIOUS: keyA });
    await deliveredSigned(owner, '/old', old.secret);
    const owner2 = { platformId: randomUUID() };
    const fresh = await sendWebhookCommand(nats.bus, WebhookCommands.create, {
      owner: owner2,
      url: receiver.url('/new'),
      eventTypes: ['transaction.created'],
    });
    expect(await sealedOf(fresh.id)).toMatch(new RegExp(`^v1\\.${kid(keyB)}\\.`));

    // The operator's command, as a process, while the service serves.
    const env = { PATH: process.env.PATH ?? '', APP_ENV: 'local', DATABASE_URL: db.url, NATS_URL: nats.url, LOG_LEVEL: 'silent' };
    const { stdout } = await run(process.execPath, [REENCRYPT], {
      env: { ...env, DATA_ENCRYPTION_KEY: keyB, DATA_ENCRYPTION_KEYS_PREVIOUS: keyA },
    });
    expect(stdout).toContain('subscriptions.secret_sealed: 1 re-encrypted, 0 unreadable');
    expect(await sealedOf(old.id)).toMatch(new RegExp(`^v1\\.${kid(keyB)}\\.`));
    const again = await run(process.execPath, [REENCRYPT], { env: { ...env, DATA_ENCRYPTION_KEY: keyB } });
    expect(again.stdout).toContain('subscriptions.secret_sealed: 0 re-encrypted, 0 unreadable');
    await rotated.stop();

    // The old key is gone: everything still signs.
    const after = await instance({ DATA_ENCRYPTION_KEY: keyB });
    await deliveredSigned(owner, '/old', old.secret);
    await deliveredSigned(owner2, '/new', fresh.secret);
    await after.stop();

    // A key that sealed nothing here opens nothing: the command says so and exits 1.
    const wrong = await run(process.execPath, [REENCRYPT], {
      env: { ...env, DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    }).then(
      () => undefined,
      (e: { code: number; stdout: string }) => e,
    );
    expect(wrong?.code).toBe(1);
    expect(wrong?.stdout).toContain('subscriptions.secret_sealed: 0 re-encrypted, 2 unreadable');
  });
});
