import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, CreateWalletProviderConfigBody, type CustodyAConfig, uuidv7 } from '@holdfast/contracts';
import { createOutboundPolicy, type OutboundPolicy, type ResolvedAddress } from '@holdfast/outbound';
import { createSecretBox } from '@holdfast/secrets';
import { rejectionOf } from '@holdfast/test-fixtures';
import { Value } from '@sinclair/typebox/value';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { walletProviderConfigs } from '../../src/db/schema.js';
import { createWalletProviderConfigRepository } from '../../src/modules/wallets/provider-configs/repository.js';
import {
  type ConfigAccess,
  configContext,
  createWalletProviderConfigService,
  FULL_CONFIG_ACCESS,
  type WalletProviderConfigService,
} from '../../src/modules/wallets/provider-configs/service.js';
import { viaProvider } from '../../src/modules/wallets/providers/adapter.js';
import { auditRecorder, openTestDatabase, type TestDb } from '../support/db.js';
import { capturedLogger } from '../support/logs.js';
import { insertWorkspaces } from '../support/tenants.js';
import { startCustodyA } from '../support/vendors.js';

let db: TestDb;
let vendor: Awaited<ReturnType<typeof startCustodyA>>;
const secrets = createSecretBox(randomBytes(32));
const audit = auditRecorder();
const logs = capturedLogger();
let service: WalletProviderConfigService;
const repository = () => createWalletProviderConfigRepository(db.db);

const workspaceA = randomUUID();
const workspaceB = randomUUID();
const actor = { actorId: randomUUID(), ipAddress: '127.0.0.1' };
const onlyA: ConfigAccess = { workspaces: [workspaceA], manageGlobal: false };

function credentials(): CustodyAConfig {
  return vendor.config;
}

async function expectAppError(promise: Promise<unknown>, code: string, status: number) {
  const error = await rejectionOf(promise, AppError);
  expect(error.code).toBe(code);
  expect(error.statusCode).toBe(status);
  return error;
}

function create(overrides: Partial<CreateWalletProviderConfigBody> = {}) {
  return service.create(
    {
      workspaceId: workspaceA,
      providerType: 'CUSTODY_A',
      providerName: 'A main',
      config: credentials(),
      walletSetId: vendor.walletSetId,
      ...overrides,
    },
    FULL_CONFIG_ACCESS,
    actor,
  );
}

/** A global config, as an operator inserts one (the API cannot create them). */
async function insertGlobal(isDefault = false) {
  const id = uuidv7();
  return repository().insert(db.db, {
    id,
    workspaceId: null,
    isGlobal: true,
    providerType: 'CUSTODY_A',
    providerName: 'Global A',
    isDefault,
    configSealed: secrets.seal(JSON.stringify(credentials()), configContext(id)),
  });
}

/** The service as `appEnv` configures it (vendor calls time out after 500 ms), on this file's database. */
function serviceIn(appEnv: 'local' | 'staging', outbound?: OutboundPolicy): WalletProviderConfigService {
  return createWalletProviderConfigService({
    repository: repository(),
    secrets,
    audit: audit.sink,
    appEnv,
    vendor: { timeoutMs: 500, appEnv },
    ...(outbound ? { outbound } : {}),
    logger: logs.logger,
  });
}

beforeAll(async () => {
  [db, vendor] = await Promise.all([openTestDatabase(), startCustodyA()]);
  await insertWorkspaces(db.db, [workspaceA, workspaceB]);
  service = serviceIn('local');
});

afterAll(async () => {
  await Promise.all([db?.drop(), vendor?.stop()]);
});

beforeEach(async () => {
  vendor.mode = 'ok';
  await db.db.delete(walletProviderConfigs);
  audit.entries.length = 0;
});

describe('create', () => {
  it('stores the config with its credentials sealed and answers without them', async () => {
    const created = await create({ isDefault: true, supportedNetworks: ['base-sepolia'], metadata: { team: 'ops' } });
    expect(created).toMatchObject({
      workspaceId: workspaceA,
      isGlobal: false,
      providerType: 'CUSTODY_A',
      providerName: 'A main',
      walletSetId: vendor.walletSetId,
      isActive: true,
      isDefault: true,
      supportedNetworks: ['base-sepolia'],
      metadata: { team: 'ops' },
      version: 1,
    });
    expect(created).not.toHaveProperty('config');
    expect(JSON.stringify(created)).not.toContain(credentials().apiKey);

    const [row] = await db.db.select().from(walletProviderConfigs).where(eq(walletProviderConfigs.id, created.id));
    expect(row?.configSealed).toMatch(/^v1\./);
    expect(row?.configSealed).not.toContain(credentials().apiKey);
    expect(JSON.parse(secrets.open(row!.configSealed, configContext(created.id)))).toEqual(credentials());
    // Bound to its row: the sealed value does not open as another row's.
    expect(() => secrets.open(row!.configSealed, configContext(randomUUID()))).toThrow();

    expect(audit.entries).toEqual([
      expect.objectContaining({
        action: 'wallet_provider_config.create',
        resourceId: created.id,
        workspaceId: workspaceA,
        actor,
        changes: expect.objectContaining({ config: { from: null, to: '[redacted]' }, providerName: { from: null, to: 'A main' } }),
      }),
    ]);
    expect(JSON.stringify(audit.entries)).not.toContain(credentials().apiKey);
  });

  it('refuses a credential object that does not fit its provider, naming each field, and writes nothing', async () => {
    const error = await expectAppError(
      service.create(
        {
          workspaceId: workspaceA,
          providerType: 'CUSTODY_A',
          providerName: 'x',
          config: { baseUrl: vendor.url, apiKey: 'short', extra: 1 },
        },
        FULL_CONFIG_ACCESS,
        actor,
      ),
      'VALIDATION_ERROR',
      400,
    );
    expect(error.details).toEqual({
      errors: [
        { field: 'config.extra', reason: 'is not a known parameter' },
        { field: 'config.apiKey', reason: expect.stringContaining('length') },
      ],
    });
    expect(error.message).not.toContain('short');
    await expectAppError(
      service.create(
        { workspaceId: workspaceA, providerType: 'CUSTODY_C', providerName: 'c', config: credentials() },
        FULL_CONFIG_ACCESS,
        actor,
      ),
      'VALIDATION_ERROR',
      400,
    );
    await expectAppError(create({ isActive: false, isDefault: true }), 'VALIDATION_ERROR', 400);
    expect(await db.db.select().from(walletProviderConfigs)).toEqual([]);
    expect(audit.entries).toEqual([]);
  });

  it('requires https vendor URLs outside local', async () => {
    const staging = serviceIn('staging');
    const error = await expectAppError(
      staging.create(
        { workspaceId: workspaceA, providerType: 'CUSTODY_A', providerName: 'x', config: credentials() },
        FULL_CONFIG_ACCESS,
        actor,
      ),
      'VALIDATION_ERROR',
      400,
    );
    expect(error.details).toEqual({ errors: [{ field: 'config.baseUrl', reason: 'must be an https URL outside local' }] });
  });

  it('cannot create a global config: the body schema refuses isGlobal true', () => {
    const body = { workspaceId: workspaceA, providerType: 'CUSTODY_A', providerName: 'x', config: {}, isGlobal: true };
    expect(Value.Check(CreateWalletProviderConfigBody, body)).toBe(false);
    expect(Value.Check(CreateWalletProviderConfigBody, { ...body, isGlobal: false })).toBe(true);
  });

  it('refuses a workspace outside the caller access', async () => {
    await expectAppError(
      service.create({ workspaceId: workspaceB, providerType: 'CUSTODY_A', providerName: 'x', config: credentials() }, onlyA, actor),
      'FORBIDDEN',
      403,
    );
    expect(await db.db.select().from(walletProviderConfigs)).toEqual([]);
  });
});

describe('list and get', () => {
  it('pages with {data, total, page, limit, totalPages} and filters', async () => {
    const a1 = await create({ providerName: 'a1' });
    const a2 = await create({ providerName: 'a2', isActive: false });
    const b1 = await create({ providerName: 'b1', workspaceId: workspaceB });
    const global = await insertGlobal();

    const page1 = await service.list({ page: 1, limit: 2 }, FULL_CONFIG_ACCESS);
    expect(page1).toMatchObject({ total: 4, page: 1, limit: 2, totalPages: 2 });
    expect(page1.data.map((c) => c.id)).toEqual([global.id, b1.id]);
    expect((await service.list({ page: 2, limit: 2 }, FULL_CONFIG_ACCESS)).data.map((c) => c.id)).toEqual([a2.id, a1.id]);
    expect((await service.list({ page: 1, limit: 20, workspaceId: workspaceA }, FULL_CONFIG_ACCESS)).total).toBe(2);
    expect((await service.list({ page: 1, limit: 20, isActive: false }, FULL_CONFIG_ACCESS)).data.map((c) => c.id)).toEqual([a2.id]);
    expect((await service.list({ page: 1, limit: 20, isGlobal: true }, FULL_CONFIG_ACCESS)).data.map((c) => c.id)).toEqual([global.id]);
    expect(await service.list({ page: 1, limit: 20, providerType: 'CUSTODY_D' }, FULL_CONFIG_ACCESS)).toEqual({
      data: [],
      total: 0,
      page: 1,
      limit: 20,
      totalPages: 0,
    });
    for (const c of page1.data) expect(c).not.toHaveProperty('config');
  });

  it('shows a workspace admin its own configs and the global ones, nothing of other workspaces', async () => {
    const mine = await create();
    const theirs = await create({ workspaceId: workspaceB });
    const global = await insertGlobal();
    const listed = await service.list({ page: 1, limit: 20 }, onlyA);
    expect(listed.data.map((c) => c.id).sort()).toEqual([mine.id, global.id].sort());
    expect((await service.list({ page: 1, limit: 20, workspaceId: workspaceB }, onlyA)).total).toBe(0);
    expect(await service.get(mine.id, onlyA)).toMatchObject({ id: mine.id });
    await expectAppError(service.get(theirs.id, onlyA), 'NOT_FOUND', 404);
    await expectAppError(service.get(randomUUID(), FULL_CONFIG_ACCESS), 'NOT_FOUND', 404);
  });
});

describe('update and delete', () => {
  it('merges new credentials, raises the version and audits only a redacted marker', async () => {
    const created = await create();
    const newKey = `a_rotated_${randomUUID()}`;
    const updated = await service.update(created.id, { providerName: 'A renamed', config: { apiKey: newKey } }, FULL_CONFIG_ACCESS, actor);
    expect(updated).toMatchObject({ providerName: 'A renamed', version: 2 });
    const [row] = await db.db.select().from(walletProviderConfigs).where(eq(walletProviderConfigs.id, created.id));
    expect(JSON.parse(secrets.open(row!.configSealed, configContext(created.id)))).toEqual({ baseUrl: vendor.url, apiKey: newKey });
    const entry = audit.entries.at(-1);
    expect(entry).toMatchObject({
      action: 'wallet_provider_config.update',
      changes: { providerName: { from: 'A main', to: 'A renamed' }, config: { from: '[redacted]', to: '[redacted]' } },
    });
    expect(JSON.stringify(audit.entries)).not.toContain(newKey);
  });

  it('refuses a bad update and changes nothing', async () => {
    const created = await create();
    await expectAppError(service.update(created.id, { config: { apiKey: 'x' } }, FULL_CONFIG_ACCESS, actor), 'VALIDATION_ERROR', 400);
    await expectAppError(
      service.update(created.id, { isActive: false, isDefault: true }, FULL_CONFIG_ACCESS, actor),
      'VALIDATION_ERROR',
      400,
    );
    expect(await service.get(created.id, FULL_CONFIG_ACCESS)).toEqual(created);
    await expectAppError(service.update(randomUUID(), { providerName: 'x' }, FULL_CONFIG_ACCESS, actor), 'NOT_FOUND', 404);
  });

  it('takes the default flag from a config that is deactivated', async () => {
    const created = await create({ isDefault: true });
    const updated = await service.update(created.id, { isActive: false }, FULL_CONFIG_ACCESS, actor);
    expect(updated).toMatchObject({ isActive: false, isDefault: false, version: 2 });
  });

  it('lets only super admins change or delete a global config', async () => {
    const global = await insertGlobal();
    await expectAppError(service.update(global.id, { providerName: 'x' }, onlyA, actor), 'FORBIDDEN', 403);
    await expectAppError(service.remove(global.id, onlyA, actor), 'FORBIDDEN', 403);
    await expectAppError(service.setDefault(global.id, onlyA, actor), 'FORBIDDEN', 403);
    expect(await service.update(global.id, { providerName: 'Global renamed' }, FULL_CONFIG_ACCESS, actor)).toMatchObject({
      providerName: 'Global renamed',
      isGlobal: true,
    });
  });

  it('deletes a config and audits it', async () => {
    const created = await create();
    await expectAppError(service.remove(created.id, { workspaces: [workspaceB], manageGlobal: false }, actor), 'NOT_FOUND', 404);
    await service.remove(created.id, onlyA, actor);
    await expectAppError(service.get(created.id, FULL_CONFIG_ACCESS), 'NOT_FOUND', 404);
    await expectAppError(service.remove(created.id, FULL_CONFIG_ACCESS, actor), 'NOT_FOUND', 404);
    expect(audit.entries.at(-1)).toMatchObject({
      action: 'wallet_provider_config.delete',
      resourceId: created.id,
      changes: { config: { from: '[redacted]', to: null } },
    });
  });
});

describe('set-default', () => {
  it('keeps one default per workspace and one among the global configs', async () => {
    const first = await create({ isDefault: true });
    const second = await create({ providerName: 'second' });
    const other = await create({ workspaceId: workspaceB, isDefault: true });
    const global = await insertGlobal(true);

    audit.entries.length = 0;
    const now = await service.setDefault(second.id, FULL_CONFIG_ACCESS, actor);
    expect(now).toMatchObject({ id: second.id, isDefault: true, version: 2 });
    // One entry for the act, naming the config that lost the flag.
    expect(audit.entries).toEqual([
      expect.objectContaining({
        action: 'wallet_provider_config.set_default',
        resourceId: second.id,
        metadata: { previousDefaultIds: [first.id] },
      }),
    ]);
    expect(await service.get(first.id, FULL_CONFIG_ACCESS)).toMatchObject({ isDefault: false, version: 2 });
    // Other scopes keep theirs.
    expect(await service.get(other.id, FULL_CONFIG_ACCESS)).toMatchObject({ isDefault: true, version: 1 });
    expect(await service.get(global.id, FULL_CONFIG_ACCESS)).toMatchObject({ isDefault: true, version: 1 });
    // Setting it again changes nothing.
    expect(await service.setDefault(second.id, FULL_CONFIG_ACCESS, actor)).toMatchObject({ version: 2 });

    const secondGlobal = await insertGlobal();
    await service.setDefault(secondGlobal.id, FULL_CONFIG_ACCESS, actor);
    expect(await service.get(global.id, FULL_CONFIG_ACCESS)).toMatchObject({ isDefault: false });
    expect(await service.get(other.id, FULL_CONFIG_ACCESS)).toMatchObject({ isDefault: true });
  });

  it('ends with exactly one default when requests race', async () => {
    const configs = await Promise.all([1, 2, 3, 4].map((n) => create({ providerName: `c${n}` })));
    await Promise.all(configs.map((c) => service.setDefault(c.id, FULL_CONFIG_ACCESS, actor)));
    const listed = await service.list({ page: 1, limit: 20, workspaceId: workspaceA }, FULL_CONFIG_ACCESS);
    expect(listed.data.filter((c) => c.isDefault)).toHaveLength(1);
  });

  it('refuses an inactive config', async () => {
    const inactive = await create({ isActive: false });
    await expectAppError(service.setDefault(inactive.id, FULL_CONFIG_ACCESS, actor), 'VALIDATION_ERROR', 400);
    await expectAppError(service.setDefault(randomUUID(), FULL_CONFIG_ACCESS, actor), 'NOT_FOUND', 404);
  });
});

describe('check-duplicate and status', () => {
  it('finds another config of the type in the same scope', async () => {
    expect(await service.checkDuplicate({ providerType: 'CUSTODY_A', workspaceId: workspaceA }, FULL_CONFIG_ACCESS)).toEqual({
      isDuplicate: false,
      existingConfig: null,
    });
    const existing = await create();
    const found = await service.checkDuplicate({ providerType: 'CUSTODY_A', workspaceId: workspaceA }, FULL_CONFIG_ACCESS);
    expect(found).toEqual({ isDuplicate: true, existingConfig: existing });
    expect(
      await service.checkDuplicate({ providerType: 'CUSTODY_A', workspaceId: workspaceA, excludeId: existing.id }, FULL_CONFIG_ACCESS),
    ).toMatchObject({
      isDuplicate: false,
    });
    expect(await service.checkDuplicate({ providerType: 'CUSTODY_C', workspaceId: workspaceA }, FULL_CONFIG_ACCESS)).toMatchObject({
      isDuplicate: false,
    });
    expect(await service.checkDuplicate({ providerType: 'CUSTODY_A' }, FULL_CONFIG_ACCESS)).toMatchObject({ isDuplicate: false });
    await insertGlobal();
    expect(await service.checkDuplicate({ providerType: 'CUSTODY_A' }, FULL_CONFIG_ACCESS)).toMatchObject({ isDuplicate: true });
    await expectAppError(service.checkDuplicate({ providerType: 'CUSTODY_A', workspaceId: workspaceB }, onlyA), 'FORBIDDEN', 403);
  });

  it('lists every config with a version that rises on each change', async () => {
    const created = await create({ isDefault: true });
    const global = await insertGlobal();
    let status = await service.status();
    expect(status.total).toBe(2);
    expect(Date.parse(status.timestamp)).not.toBeNaN();
    expect(status.configs.find((c) => c.id === created.id)).toEqual({
      id: created.id,
      workspaceId: workspaceA,
      isGlobal: false,
      providerType: 'CUSTODY_A',
      providerName: 'A main',
      version: 1,
      isActive: true,
      isDefault: true,
      updatedAt: created.updatedAt,
    });
    await service.update(created.id, { metadata: { a: 1 } }, FULL_CONFIG_ACCESS, actor);
    await service.update(created.id, { config: { apiKey: `k_${randomUUID()}` } }, FULL_CONFIG_ACCESS, actor);
    await service.setDefault(global.id, FULL_CONFIG_ACCESS, actor);
    status = await service.status();
    expect(status.configs.find((c) => c.id === created.id)?.version).toBe(3);
    expect(status.configs.find((c) => c.id === global.id)).toMatchObject({ version: 2, isDefault: true });
    expect((await service.status({ workspaceId: workspaceB })).configs.map((c) => c.id)).toEqual([global.id]);
    expect(JSON.stringify(status)).not.toContain(credentials().apiKey);
  });
});

describe('test-connection', () => {
  it('asks the vendor with the stored credentials', async () => {
    const created = await create();
    expect(await service.testConnection(created.id, onlyA)).toEqual({
      success: true,
      message: 'CUSTODY_A accepted the credentials',
      details: { providerType: 'CUSTODY_A', baseUrl: vendor.url, appId: 'app_1' },
    });
    expect(vendor.requests.at(-1)?.headers.authorization).toBe(`Bearer ${credentials().apiKey}`);
  });

  it.each([
    ['unauthorized', 'unauthorized', 401],
    ['hang', 'timeout', undefined],
    ['malformed', 'malformed_response', 200],
    ['server_error', 'vendor_error', 503],
  ] as const)('answers success false when the vendor is %s', async (mode, reason, vendorStatus) => {
    const created = await create();
    vendor.mode = mode;
    const result = await service.testConnection(created.id, FULL_CONFIG_ACCESS);
    expect(result.success).toBe(false);
    expect(result.details).toMatchObject({
      providerType: 'CUSTODY_A',
      reason,
      provider: 'CUSTODY_A',
      ...(vendorStatus ? { vendorStatus } : {}),
    });
    expect(JSON.stringify(result)).not.toContain(credentials().apiKey);
  });

  it('says so when stored credentials no longer open', async () => {
    const created = await create();
    const otherKey = createSecretBox(randomBytes(32));
    await db.db
      .update(walletProviderConfigs)
      .set({ configSealed: otherKey.seal(JSON.stringify(credentials()), configContext(created.id)) })
      .where(eq(walletProviderConfigs.id, created.id));
    expect(await service.testConnection(created.id, FULL_CONFIG_ACCESS)).toMatchObject({
      success: false,
      details: { reason: 'undecryptable' },
    });
    await expectAppError(service.testConnection(created.id, { workspaces: [workspaceB], manageGlobal: false }), 'NOT_FOUND', 404);
  });

  it('never writes the credentials to a log line', () => {
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const line of logs.lines) expect(line).not.toContain(credentials().apiKey);
    logs.logger.info({ config: credentials() }, 'a careless line');
    expect(logs.lines.at(-1)).toContain('"config":"[redacted]"');
  });
});

// SSRF: a tenant's baseUrl must not reach our own network (127.0.0.1:5432 is our PostgreSQL,
// 169.254.169.254 a cloud metadata service). Outside local it is refused when saved (the host as
// written and what it resolves to) and again on every connection, on the address actually
// connected to. Names resolve through an injected resolver, so one can be public when saved and
// loopback when connected to (DNS rebinding); `localhost` goes through the real resolver.
describe('where baseUrl may point, outside local (APP_ENV=staging)', () => {
  const dns = new Map<string, string[]>([
    ['vendor.example', ['93.184.216.34']],
    ['internal.example', ['10.1.2.3']],
  ]);
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    const addresses = dns.get(hostname);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  let policy: OutboundPolicy;
  let staging: WalletProviderConfigService;

  beforeAll(() => {
    policy = createOutboundPolicy({ appEnv: 'staging', resolver, connectTimeoutMs: 500 });
    staging = serviceIn('staging', policy);
  });
  afterAll(() => policy?.close());

  const withBaseUrl = (baseUrl: string) => ({ ...credentials(), baseUrl });
  const stagingCreate = (baseUrl: string) =>
    staging.create(
      { workspaceId: workspaceA, providerType: 'CUSTODY_A', providerName: 'x', config: withBaseUrl(baseUrl) },
      FULL_CONFIG_ACCESS,
      actor,
    );

  it.each([
    ['http://127.0.0.1:5432', 'must be an https URL outside local'],
    ['http://169.254.169.254/', 'must be an https URL outside local'],
    ['http://10.0.0.1', 'must be an https URL outside local'],
    ['https://127.0.0.1:5432', 'must not point to a loopback address (127.0.0.1) outside local'],
    ['https://169.254.169.254/', 'must not point to a link-local address (169.254.169.254) outside local'],
    ['https://10.0.0.1', 'must not point to a private address (10.0.0.1) outside local'],
    ['https://[::1]:4222', 'must not point to a loopback address (::1) outside local'],
    ['https://internal.example', 'must not point to a private address: internal.example resolves to 10.1.2.3, refused outside local'],
  ])('create refuses %s with 400 and stores nothing', async (baseUrl, reason) => {
    const error = await expectAppError(stagingCreate(baseUrl), 'VALIDATION_ERROR', 400);
    expect(error.details).toEqual({ errors: [{ field: 'config.baseUrl', reason }] });
    expect(JSON.stringify(error.details)).not.toContain(credentials().apiKey);
    expect(await db.db.select().from(walletProviderConfigs)).toEqual([]);
    expect(audit.entries).toEqual([]);
  });

  it('update refuses a non-public baseUrl with 400 and keeps the stored config', async () => {
    const created = await stagingCreate('https://vendor.example');
    const [stored] = await db.db.select().from(walletProviderConfigs).where(eq(walletProviderConfigs.id, created.id));
    audit.entries.length = 0;
    for (const [baseUrl, reason] of [
      ['https://127.0.0.1:5432', 'must not point to a loopback address (127.0.0.1) outside local'],
      ['https://169.254.169.254/', 'must not point to a link-local address (169.254.169.254) outside local'],
      ['https://10.0.0.1', 'must not point to a private address (10.0.0.1) outside local'],
      ['http://10.0.0.1', 'must be an https URL outside local'],
    ] as const) {
      const error = await expectAppError(
        staging.update(created.id, { config: { baseUrl }, providerName: 'renamed' }, FULL_CONFIG_ACCESS, actor),
        'VALIDATION_ERROR',
        400,
      );
      expect(error.details).toEqual({ errors: [{ field: 'config.baseUrl', reason }] });
    }
    expect(await db.db.select().from(walletProviderConfigs).where(eq(walletProviderConfigs.id, created.id))).toEqual([stored]);
    expect(audit.entries).toEqual([]);
    // A public one is accepted.
    expect(
      (await staging.update(created.id, { config: { baseUrl: 'https://vendor.example/v2' } }, FULL_CONFIG_ACCESS, actor)).version,
    ).toBe(2);
  });

  it('test-connection answers address_refused when the saved host resolves to loopback at connect time (DNS rebinding)', async () => {
    dns.set('rebind.example', ['93.184.216.34']);
    const port = new URL(vendor.url).port;
    const created = await stagingCreate(`https://rebind.example:${port}`);
    dns.set('rebind.example', ['127.0.0.1']);
    const requests = vendor.requests.length;
    const refusal =
      'connection refused by policy: rebind.example: address 127.0.0.1 is loopback; only public addresses are allowed outside local';
    expect(await staging.testConnection(created.id, FULL_CONFIG_ACCESS)).toEqual({
      success: false,
      message: `CUSTODY_A is at an address we do not connect to (${refusal})`,
      details: {
        providerType: 'CUSTODY_A',
        baseUrl: `https://rebind.example:${port}`,
        provider: 'CUSTODY_A',
        reason: 'address_refused',
        refusal,
      },
    });
    // Wallet operations answer the usual provider error (502), not a 500.
    const { adapter } = await staging.usableAdapter(workspaceA, 'CUSTODY_A');
    const error = await expectAppError(
      viaProvider(() => adapter.listAccounts({ walletId: vendor.walletSetId })),
      'WALLET_PROVIDER_ERROR',
      502,
    );
    expect(error.details).toMatchObject({ provider: 'CUSTODY_A', reason: 'address_refused', refusal });
    expect(vendor.requests.length).toBe(requests);
  });

  it('test-connection refuses a stored localhost baseUrl (saved before the rules, real resolver)', async () => {
    const real = createOutboundPolicy({ appEnv: 'staging', connectTimeoutMs: 500 });
    const service = serviceIn('staging', real);
    const id = uuidv7();
    const baseUrl = `http://localhost:${new URL(vendor.url).port}`;
    await repository().insert(db.db, {
      id,
      workspaceId: workspaceA,
      isGlobal: false,
      providerType: 'CUSTODY_A',
      providerName: 'from before',
      configSealed: secrets.seal(JSON.stringify(withBaseUrl(baseUrl)), configContext(id)),
    });
    const requests = vendor.requests.length;
    const result = await service.testConnection(id, FULL_CONFIG_ACCESS);
    expect(result).toMatchObject({ success: false, details: { reason: 'address_refused', baseUrl } });
    expect(result.details.refusal).toMatch(
      /^connection refused by policy: localhost: address (127\.0\.0\.1|::1) is loopback; only public addresses are allowed outside local$/,
    );
    expect(vendor.requests.length).toBe(requests);
    await real.close();
  });
});

describe('resolution for a workspace', () => {
  it('uses the workspace active config before a global one, else 400 WALLET_PROVIDER_NOT_CONFIGURED', async () => {
    await expectAppError(service.usableAdapter(workspaceA, 'CUSTODY_A'), 'WALLET_PROVIDER_NOT_CONFIGURED', 400);
    const global = await insertGlobal(true);
    expect((await service.usableAdapter(workspaceA, 'CUSTODY_A')).config.id).toBe(global.id);
    const own = await create();
    expect((await service.usableAdapter(workspaceA, 'CUSTODY_A')).config.id).toBe(own.id);
    await service.update(own.id, { isActive: false }, FULL_CONFIG_ACCESS, actor);
    expect((await service.usableAdapter(workspaceA, 'CUSTODY_A')).config.id).toBe(global.id);
    await expectAppError(service.usableAdapter(workspaceA, 'CUSTODY_B'), 'WALLET_PROVIDER_NOT_CONFIGURED', 400);
  });
});
