import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createKeyring, createSecretBox, keyIdOf } from '@holdfast/secrets';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SEALED_COLUMNS } from '../../src/db/sealed-columns.js';
import { buildWorld, type Harness, startHarness, type World } from '../support/harness.js';
import { startCustodyA } from '../support/vendors.js';

// The operator's re-encrypt command (docs/operations.md#rotating-data_encryption_key) against
// values the running service sealed: every sealed column of workspace-service is walked, the old
// values move to the new key and still open.

const REENCRYPT = fileURLToPath(new URL('../../dist/reencrypt.js', import.meta.url));
const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
let h: Harness;
let world: World;
let vendor: Awaited<ReturnType<typeof startCustodyA>>;

beforeAll(async () => {
  [h, vendor] = await Promise.all([startHarness({ DATA_ENCRYPTION_KEY: keyA }), startCustodyA()]);
  world = await buildWorld(h);
});
afterAll(async () => {
  await h?.stop();
  await vendor?.stop();
});

it('re-seals every sealed column under the new key; a second run finds nothing', async () => {
  const token = world.adminW1.token;
  const setting = await h.call('POST', '/api/v1/settings', { token, body: { key: 'erp.apiKey', value: 'erp-secret', isEncrypted: true } });
  expect(setting.status, setting.text).toBe(201);
  const config = await h.call('POST', '/api/v1/wallet-provider-configs', {
    token,
    body: {
      workspaceId: world.w1.id,
      providerType: 'CUSTODY_A',
      providerName: 'A',
      config: vendor.config,
      walletSetId: vendor.walletSetId,
    },
  });
  expect(config.status, config.text).toBe(201);
  const [row] = await h.sql<
    { config_sealed: string }[]
  >`select config_sealed from workspace.wallet_provider_configs where id = ${config.body.data.id}`;
  expect(row!.config_sealed.split('.')[1]).toBe(keyIdOf(Buffer.from(keyA, 'base64')));

  const env = {
    PATH: process.env.PATH ?? '',
    APP_ENV: 'local',
    ...h.env,
    LOG_LEVEL: 'silent',
    DATA_ENCRYPTION_KEY: keyB,
    DATA_ENCRYPTION_KEYS_PREVIOUS: keyA,
  };
  const { stdout } = await promisify(execFile)(process.execPath, [REENCRYPT], { env });
  for (const c of SEALED_COLUMNS) expect(stdout).toContain(`${c.table}.${c.column}: `);
  expect(stdout).toContain('wallet_provider_configs.config_sealed: 1 re-encrypted, 0 unreadable');
  expect(stdout).toContain('settings.value: 1 re-encrypted, 0 unreadable');

  const onlyB = createSecretBox(createKeyring({ key: keyB, appEnv: 'production' }));
  const [sealed] = await h.sql<
    { id: string; value: string }[]
  >`select id, value from workspace.settings where id = ${setting.body.data.id}`;
  expect(onlyB.open(sealed!.value, `settings.value:${sealed!.id}`)).toBe('erp-secret');
  const [moved] = await h.sql<
    { config_sealed: string }[]
  >`select config_sealed from workspace.wallet_provider_configs where id = ${config.body.data.id}`;
  expect(JSON.parse(onlyB.open(moved!.config_sealed, `wallet_provider_configs.config:${config.body.data.id}`))).toMatchObject({
    apiKey: vendor.config.apiKey,
  });

  const again = await promisify(execFile)(process.execPath, [REENCRYPT], { env: { ...env, DATA_ENCRYPTION_KEYS_PREVIOUS: '' } });
  expect(again.stdout).toContain('wallet_provider_configs.config_sealed: 0 re-encrypted, 0 unreadable');
});
