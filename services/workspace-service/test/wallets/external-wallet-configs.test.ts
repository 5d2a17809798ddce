import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, ExternalWalletConfigParams, UpsertExternalWalletConfigBody } from '@holdfast/contracts';
import { createSecretBox } from '@holdfast/secrets';
import { rejectionOf } from '@holdfast/test-fixtures';
import { Value } from '@sinclair/typebox/value';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalWalletConfigs } from '../../src/db/schema.js';
import { createExternalWalletConfigRepository } from '../../src/modules/wallets/external/repository.js';
import {
  createExternalWalletConfigService,
  type ExternalWalletConfigService,
  rpcKeyContext,
} from '../../src/modules/wallets/external/service.js';
import { auditRecorder, openTestDatabase, type TestDb } from '../support/db.js';
import { insertWorkspace } from '../support/tenants.js';

let db: TestDb;
let service: ExternalWalletConfigService;
const secrets = createSecretBox(randomBytes(32));
const audit = auditRecorder();
const actor = { actorId: randomUUID() };
const rpcKey = `rpc_${randomUUID()}`;

beforeAll(async () => {
  db = await openTestDatabase();
  service = createExternalWalletConfigService({ repository: createExternalWalletConfigRepository(db.db), secrets, audit: audit.sink });
});
afterAll(async () => {
  await db?.drop();
});

const appError = (promise: Promise<unknown>) => rejectionOf(promise, AppError);

describe('external wallet configs', () => {
  it('creates on first PUT with defaults, seals the RPC key and answers it to the workspace', async () => {
    const workspaceId = await insertWorkspace(db.db);
    expect(await service.list(workspaceId)).toEqual({ configs: [] });
    const created = await service.upsert(
      workspaceId,
      'EXTERNAL_WALLET_2',
      { config: { rpcProviderApiKey: rpcKey, projectId: 'proj-1', appName: 'Acme', appLogoUrl: 'https://acme.test/logo.png' } },
      actor,
    );
    expect(created).toEqual({
      id: expect.any(String),
      workspaceId,
      providerType: 'EXTERNAL_WALLET_2',
      isEnabled: false,
      allowedNetworks: [],
      allowedTemplateIds: [],
      config: { rpcProviderApiKey: rpcKey, projectId: 'proj-1', appName: 'Acme', appLogoUrl: 'https://acme.test/logo.png' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const [row] = await db.db.select().from(externalWalletConfigs).where(eq(externalWalletConfigs.id, created.id));
    expect(JSON.stringify(row)).not.toContain(rpcKey);
    expect(secrets.open(row!.rpcProviderApiKeySealed!, rpcKeyContext(created.id))).toBe(rpcKey);
    expect(audit.entries.at(-1)).toMatchObject({
      action: 'external_wallet_config.upsert',
      changes: { 'config.rpcProviderApiKey': { from: null, to: '[redacted]' } },
    });
    expect(JSON.stringify(audit.entries)).not.toContain(rpcKey);
    expect(await service.get(workspaceId, 'EXTERNAL_WALLET_2')).toEqual(created);
    expect(await service.list(workspaceId)).toEqual({ configs: [created] });
  });

  it('updates only the fields given; config replaces the whole settings object', async () => {
    const workspaceId = await insertWorkspace(db.db);
    const created = await service.upsert(
      workspaceId,
      'EXTERNAL_WALLET_1',
      { config: { rpcProviderApiKey: rpcKey, appName: 'Old' } },
      actor,
    );
    const enabled = await service.upsert(
      workspaceId,
      'EXTERNAL_WALLET_1',
      { isEnabled: true, allowedNetworks: ['BASE_SEPOLIA', 'BASE'] },
      actor,
    );
    expect(enabled).toMatchObject({
      id: created.id,
      isEnabled: true,
      allowedNetworks: ['BASE_SEPOLIA', 'BASE'],
      config: { rpcProviderApiKey: rpcKey, appName: 'Old' },
    });
    const replaced = await service.upsert(
      workspaceId,
      'EXTERNAL_WALLET_1',
      { config: { appName: 'New' }, allowedTemplateIds: ['tpl_1'] },
      actor,
    );
    expect(replaced).toMatchObject({ id: created.id, isEnabled: true, allowedTemplateIds: ['tpl_1'], config: { appName: 'New' } });
    expect(replaced.config).not.toHaveProperty('rpcProviderApiKey');
    expect(audit.entries.at(-1)).toMatchObject({
      action: 'external_wallet_config.upsert',
      changes: { 'config.rpcProviderApiKey': { from: '[redacted]', to: '[redacted]' }, allowedTemplateIds: { from: [], to: ['tpl_1'] } },
    });
  });

  it('keeps one config per type when PUTs race', async () => {
    const workspaceId = await insertWorkspace(db.db);
    const results = await Promise.all(
      [1, 2, 3].map((n) => service.upsert(workspaceId, 'EXTERNAL_WALLET_3', { allowedTemplateIds: [`t${n}`] }, actor)),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect((await service.list(workspaceId)).configs).toHaveLength(1);
  });

  it('deletes with a message, then 404', async () => {
    const workspaceId = await insertWorkspace(db.db);
    await service.upsert(workspaceId, 'EXTERNAL_WALLET_4', { isEnabled: true }, actor);
    expect(await service.remove(workspaceId, 'EXTERNAL_WALLET_4', actor)).toEqual({ message: 'EXTERNAL_WALLET_4 configuration deleted' });
    expect((await appError(service.get(workspaceId, 'EXTERNAL_WALLET_4'))).toObject()).toMatchObject({
      code: 'NOT_FOUND',
      statusCode: 404,
    });
    expect((await appError(service.remove(workspaceId, 'EXTERNAL_WALLET_4', actor))).code).toBe('NOT_FOUND');
  });

  it('keeps workspaces apart', async () => {
    const mine = await insertWorkspace(db.db);
    await service.upsert(mine, 'EXTERNAL_WALLET_1', { isEnabled: true }, actor);
    const theirs = await insertWorkspace(db.db);
    expect(await service.list(theirs)).toEqual({ configs: [] });
    expect((await appError(service.get(theirs, 'EXTERNAL_WALLET_1'))).code).toBe('NOT_FOUND');
  });

  it('has schemas that refuse an unknown type, network or field (400 at the route)', () => {
    expect(Value.Check(ExternalWalletConfigParams, { id: randomUUID(), type: 'EXTERNAL_WALLET_5' })).toBe(false);
    expect(Value.Check(UpsertExternalWalletConfigBody, { allowedNetworks: ['base-sepolia'] })).toBe(false);
    expect(Value.Check(UpsertExternalWalletConfigBody, { config: { secret: 'x' } })).toBe(false);
    expect(
      Value.Check(UpsertExternalWalletConfigBody, {
        isEnabled: true,
        allowedNetworks: ['BASE_SEPOLIA'],
        config: { appLogoUrl: 'https://a.test/l.png' },
      }),
    ).toBe(true);
  });
});
