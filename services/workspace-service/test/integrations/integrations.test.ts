import { INTEGRATION_CATALOG } from '@holdfast/contracts';
import { createKeyring, createSecretBox } from '@holdfast/secrets';
import { type StandIn, startStandIn } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertUser } from '../support/fixtures.js';
import { auditEntries, buildWorld, type Harness, startHarness, type World } from '../support/harness.js';
import { capturedLogger } from '../support/logs.js';

// The integrations of a workspace, with the two providers that are called standing in locally:
// a KYC provider (GET /v1/account with a bearer key) and a chat provider (incoming webhooks).
const KYC = INTEGRATION_CATALOG.find((k) => k.key === 'kyc-provider')!.id;
const EXPORT = INTEGRATION_CATALOG.find((k) => k.key === 'accounting-export')!.id;
const CHAT = INTEGRATION_CATALOG.find((k) => k.key === 'chat-notifier')!.id;

const KYC_KEY = 'kyc_sandbox_key_7f3a9c1e5b';
const KYC_LIVE_KEY = 'kyc_live_key_0d8e2b6a4c';
const KYC_SLOW_KEY = 'kyc_slow_key_9999999999';
const KYC_WEBHOOK_SECRET = 'kyc_whsec_4e1d7a0b3c9f';
const CHAT_TOKEN = 'T01AB/B02CD/goodtoken8c1e9a';
const CHAT_DOWN_TOKEN = 'T01AB/B02CD/downtoken000000';
const SECRETS = [KYC_KEY, KYC_LIVE_KEY, KYC_WEBHOOK_SECRET, CHAT_TOKEN, 'goodtoken8c1e9a'];

let h: Harness;
let world: World;
let provider: StandIn;
let lines: string[];
/** Every answer body of this file, to check that no secret ever came back. */
const answers: string[] = [];
let acceptedKycKeys = new Set([KYC_KEY, KYC_LIVE_KEY]);

function kycAnswer(authorization: string | undefined) {
  const key = authorization?.replace(/^Bearer /, '');
  if (key === KYC_SLOW_KEY) return { status: 200, hang: true };
  if (!key || !acceptedKycKeys.has(key)) return { status: 401, body: { error: 'invalid key' } };
  return { status: 200, body: { environment: key === KYC_LIVE_KEY ? 'live' : 'sandbox', levels: ['basic-kyc', 'enhanced-kyc'] } };
}

const kycConfig = (extra: Record<string, unknown> = {}) => ({ apiKey: KYC_KEY, environment: 'sandbox', levelName: 'basic-kyc', ...extra });
const exportConfig = (extra: Record<string, unknown> = {}) => ({
  format: 'csv',
  schedule: 'monthly',
  recipientEmail: 'books@tenant-one.test',
  ...extra,
});

async function call(method: string, path: string, token: string, body?: unknown) {
  const answer = await h.call(method, path, { token, body });
  answers.push(answer.text);
  return answer;
}

const base = () => `/api/v1/workspaces/${world.w1.id}/integrations`;
/** POST .../integrations/validate as W1's CLIENT (the saved config is re-checked when `config` is left out). */
const validate = (integrationId: string, config?: unknown, token = world.clientW1.token) =>
  call('POST', `${base()}/validate`, token, config === undefined ? { integrationId } : { integrationId, config });

async function rowsOfW1() {
  return h.sql`select * from workspace.workspace_integrations where workspace_id = ${world.w1.id} order by created_at`;
}

beforeAll(async () => {
  provider = await startStandIn((req) => {
    if (req.method === 'GET' && req.url.pathname === '/kyc/v1/account') return kycAnswer(req.headers.authorization);
    const chat = /^\/chat\/services\/(.+)$/.exec(req.url.pathname);
    if (req.method === 'POST' && chat) {
      if (chat[1] === CHAT_DOWN_TOKEN) return { status: 503, body: 'upstream down' };
      if (chat[1] !== CHAT_TOKEN) return { status: 404, body: 'no_service' };
      if ((req.json as { channel?: string }).channel === '#nope') return { status: 400, body: 'channel_not_found' };
      return { status: 200, body: 'ok' };
    }
    return { status: 404, body: {} };
  });
  const captured = capturedLogger();
  lines = captured.lines;
  h = await startHarness(
    {
      INTEGRATION_PROVIDER_URLS: `kyc-provider=${provider.url}/kyc,chat-notifier=${provider.url}/chat`,
      INTEGRATION_PROVIDER_TIMEOUT: '1s',
    },
    { logger: captured.logger },
  );
  world = await buildWorld(h);
});
afterAll(async () => {
  await h?.stop();
  await provider?.stop();
});
beforeEach(() => {
  acceptedKycKeys = new Set([KYC_KEY, KYC_LIVE_KEY]);
});

describe('the catalog', () => {
  it('lists every kind with its stable id, schema, required and secret fields, and availability', async () => {
    const res = await call('GET', '/api/v1/integrations', world.clientW1.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((k: { id: string; key: string }) => [k.id, k.key])).toEqual([
      ['3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e01', 'kyc-provider'],
      ['3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e02', 'accounting-export'],
      ['3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e03', 'chat-notifier'],
    ]);
    const [kyc, accounting, chat] = res.body.data;
    expect(kyc).toMatchObject({
      category: 'compliance',
      callsProvider: true,
      available: true,
      requiredFields: ['apiKey', 'environment', 'levelName'],
      secretFields: ['apiKey', 'webhookSecret'],
    });
    expect(kyc.configSchema.properties.apiKey).toMatchObject({ type: 'string', writeOnly: true });
    expect(accounting).toMatchObject({ category: 'accounting', callsProvider: false, secretFields: [] });
    expect(chat).toMatchObject({ category: 'notifications', secretFields: ['webhookToken'] });
    expect((await h.call('GET', '/api/v1/integrations')).status).toBe(401);
  });

  it('marks the kinds whose provider this deployment has no endpoint for as unavailable', async () => {
    const other = await startHarness({ INTEGRATION_PROVIDER_URLS: `chat-notifier=${provider.url}/chat` });
    try {
      const otherWorld = await buildWorld(other);
      const catalog = await other.call('GET', '/api/v1/integrations', { token: otherWorld.adminW1.token });
      expect(catalog.body.data.map((k: { available: boolean }) => k.available)).toEqual([false, true, true]);
      const refused = await other.call('POST', `/api/v1/workspaces/${otherWorld.w1.id}/integrations`, {
        token: otherWorld.adminW1.token,
        body: { integrationId: KYC, config: kycConfig() },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.errors).toEqual([
        { field: 'integrationId', reason: 'is not available on this deployment (kyc-provider has no provider endpoint)' },
      ]);
    } finally {
      await other.stop();
    }
  });
});

describe('POST /workspaces/{id}/integrations', () => {
  it('saves a kind without provider as active, and one with a provider as pending, secrets sealed and masked', async () => {
    const accounting = await call('POST', base(), world.clientW1.token, {
      integrationId: EXPORT,
      config: exportConfig({ timezone: 'Europe/Berlin' }),
      metadata: { costCenter: 'F-12' },
    });
    expect(accounting.status, accounting.text).toBe(200);
    expect(accounting.body.data).toMatchObject({
      workspaceId: world.w1.id,
      integrationId: EXPORT,
      integration: { key: 'accounting-export', name: 'Accounting export', category: 'accounting' },
      status: 'active',
      config: exportConfig({ timezone: 'Europe/Berlin' }),
      errorMessage: null,
      metadata: { costCenter: 'F-12' },
    });
    expect(accounting.body.data.lastValidatedAt).not.toBeNull();

    const requestsBefore = provider.requests.length;
    const kyc = await call('POST', base(), world.adminW1.token, {
      integrationId: KYC,
      config: kycConfig({ webhookSecret: KYC_WEBHOOK_SECRET }),
    });
    expect(kyc.status, kyc.text).toBe(200);
    expect(kyc.body.data).toMatchObject({
      status: 'pending',
      lastValidatedAt: null,
      config: { apiKey: '********', webhookSecret: '********', environment: 'sandbox', levelName: 'basic-kyc' },
    });
    expect(provider.requests.length).toBe(requestsBefore);

    const [row] = await h.sql`select * from workspace.workspace_integrations where id = ${kyc.body.data.id}`;
    expect(row?.config).toEqual({ environment: 'sandbox', levelName: 'basic-kyc' });
    expect(row?.secret_fields).toEqual(['apiKey', 'webhookSecret']);
    expect(row?.secrets_sealed).toMatch(/^v1\./);
    expect(row?.secrets_sealed).not.toContain(KYC_KEY);
    // Sealed under DATA_ENCRYPTION_KEY and bound to its row: another row's context does not open it.
    const box = createSecretBox(createKeyring({ key: undefined, appEnv: 'local' }));
    expect(JSON.parse(box.open(row!.secrets_sealed, `workspace_integrations.secrets:${row!.id}`))).toEqual({
      apiKey: KYC_KEY,
      webhookSecret: KYC_WEBHOOK_SECRET,
    });
    expect(() => box.open(row!.secrets_sealed, `workspace_integrations.secrets:${accounting.body.data.id}`)).toThrow();

    const [entry] = await auditEntries(h, { action: 'integration.create', resourceId: kyc.body.data.id });
    expect(entry).toMatchObject({ success: true, workspace_id: world.w1.id });
    expect(entry?.changes).toMatchObject({
      'config.apiKey': { from: null, to: '[redacted]' },
      'config.webhookSecret': { from: null, to: '[redacted]' },
      'config.levelName': { from: null, to: 'basic-kyc' },
    });
  });

  it('refuses a second integration of a kind (409) and names every bad field (400), saving nothing', async () => {
    const before = await rowsOfW1();
    const again = await call('POST', base(), world.adminW1.token, { integrationId: EXPORT, config: exportConfig() });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { integrationId: EXPORT } });

    const bad = await call('POST', base(), world.adminW1.token, {
      integrationId: CHAT,
      config: { webhookToken: 'short', channel: 'Not A Channel', colour: 'red' },
      metadata: { blob: 'x'.repeat(17_000) },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'config.channel',
      'config.colour',
      'config.webhookToken',
      'metadata',
    ]);
    expect(bad.body.error.details.errors).toContainEqual({ field: 'config.webhookToken', reason: 'must be at least 8 characters' });

    const kinds = await call('POST', base(), world.adminW1.token, {
      integrationId: '00000000-0000-4000-8000-000000000000',
      config: {},
      metadata: { blob: 'x'.repeat(17_000) },
    });
    expect(kinds.status).toBe(400);
    expect(kinds.body.error.details.errors.map((e: { field: string }) => e.field)).toEqual(['integrationId', 'metadata']);

    const schema = await call('POST', base(), world.adminW1.token, { integrationId: 'kyc', config: 'apiKey' });
    expect(schema.status).toBe(400);
    expect(schema.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['config', 'integrationId']);

    const masked = await call('POST', base(), world.adminW1.token, {
      integrationId: CHAT,
      config: { webhookToken: 'T01AB/B02CD/*****' },
    });
    expect(masked.body.error.details.errors).toEqual([
      { field: 'config.webhookToken', reason: 'has characters or a shape that is not allowed' },
    ]);
    const mask = await validate(KYC, kycConfig({ apiKey: '********' }), world.adminW1.token);
    expect(mask.body.data.errors).toEqual([{ field: 'config.apiKey', reason: 'must be the secret itself, not the mask ********' }]);
    expect(await rowsOfW1()).toEqual(before);
  });

  it('keeps other tenants out (403) and answers 404 for a workspace that does not exist', async () => {
    const before = await rowsOfW1();
    const other = await call('POST', base(), world.adminW2.token, { integrationId: CHAT, config: { webhookToken: CHAT_TOKEN } });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    expect((await call('GET', base(), world.adminW2.token)).status).toBe(403);
    expect((await call('GET', `${base()}/${EXPORT}`, world.adminW2.token)).status).toBe(403);
    expect((await call('GET', '/api/v1/workspaces/00000000-0000-4000-8000-000000000000/integrations', world.superAdmin.token)).status).toBe(
      404,
    );
    expect(await rowsOfW1()).toEqual(before);
  });
});

describe('validate', () => {
  it('checks a config with the provider and saves nothing', async () => {
    const before = await rowsOfW1();
    const seen = provider.requests.length;
    const ok = await validate(KYC, kycConfig());
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toMatchObject({ integrationId: KYC, valid: true, errors: [], providerCheck: 'passed', saved: false });
    const request = provider.requests[seen];
    expect(request).toMatchObject({ method: 'GET', path: '/kyc/v1/account' });
    expect(request?.headers.authorization).toBe(`Bearer ${KYC_KEY}`);

    const refused = await validate(KYC, kycConfig({ apiKey: 'kyc_wrong_key_123456' }));
    expect(refused.body.data).toMatchObject({
      valid: false,
      providerCheck: 'refused',
      errors: [{ field: 'config.apiKey', reason: 'was refused by the provider (HTTP 401)' }],
    });
    const mismatch = await validate(KYC, kycConfig({ apiKey: KYC_LIVE_KEY, levelName: 'gold' }));
    expect(mismatch.body.data.errors).toEqual([
      { field: 'config.environment', reason: 'does not match the key, which belongs to live' },
      { field: 'config.levelName', reason: 'is not a verification level of this provider account' },
    ]);
    const fields = await validate(KYC, { environment: 'prod' });
    expect(fields.body.data).toMatchObject({ valid: false, providerCheck: 'skipped' });
    expect(fields.body.data.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'config.apiKey',
      'config.environment',
      'config.levelName',
    ]);
    const local = await validate(EXPORT, exportConfig({ timezone: 'Mars/Olympus' }));
    expect(local.body.data).toMatchObject({
      valid: false,
      providerCheck: 'not_applicable',
      errors: [{ field: 'config.timezone', reason: 'is not an IANA time zone (e.g. Europe/Berlin)' }],
    });
    const chat = await validate(CHAT, { webhookToken: CHAT_TOKEN, channel: '#payments', username: 'Holdfast' });
    expect(chat.body.data).toMatchObject({ valid: true, providerCheck: 'passed' });
    const posted = provider.requests.at(-1);
    expect(posted?.json).toEqual({
      text: 'Holdfast is connected to this channel. You can ignore this test message.',
      channel: '#payments',
      username: 'Holdfast',
    });
    expect(await rowsOfW1()).toEqual(before);
    const entries = await auditEntries(h, { action: 'integration.validate' });
    expect(entries.length).toBeGreaterThanOrEqual(6);
    expect(entries.every((e) => e.success && e.workspace_id === world.w1.id)).toBe(true);
  });

  it('says the provider was unreachable when it does not answer in time or fails', async () => {
    const slow = await validate(KYC, kycConfig({ apiKey: KYC_SLOW_KEY }));
    expect(slow.body.data).toMatchObject({
      valid: false,
      providerCheck: 'unreachable',
      errors: [{ field: 'config', reason: 'could not be checked: the provider did not answer within 1000 ms' }],
    });
    const down = await validate(CHAT, { webhookToken: CHAT_DOWN_TOKEN });
    expect(down.body.data).toMatchObject({
      providerCheck: 'unreachable',
      errors: [{ field: 'config', reason: 'could not be checked: the provider answered HTTP 503' }],
    });
  });

  it('re-checks the saved config without `config` and records the outcome on it', async () => {
    const pending = await call('GET', `${base()}/${KYC}`, world.clientW1.token);
    expect(pending.body.data.status).toBe('pending');
    const recheck = await validate(KYC);
    expect(recheck.status, recheck.text).toBe(200);
    expect(recheck.body.data).toMatchObject({ valid: true, providerCheck: 'passed', saved: true });
    const active = await call('GET', `${base()}/${KYC}/status`, world.clientW1.token);
    expect(active.body.data).toMatchObject({ key: 'kyc-provider', status: 'active', errorMessage: null, needsValidation: false });
    expect(active.body.data.lastValidatedAt).not.toBeNull();

    // The provider revokes the key: the next re-check records the failure.
    acceptedKycKeys = new Set([KYC_LIVE_KEY]);
    const failed = await validate(KYC);
    expect(failed.body.data).toMatchObject({ valid: false, providerCheck: 'refused', saved: true });
    const status = await call('GET', `${base()}/${KYC}/status`, world.clientW1.token);
    expect(status.body.data).toMatchObject({
      status: 'error',
      errorMessage: 'config.apiKey was refused by the provider (HTTP 401)',
      needsValidation: true,
      lastValidatedAt: active.body.data.lastValidatedAt,
    });
    const none = await validate(CHAT);
    expect(none.status).toBe(404);
  });
});

describe('POST /workspaces/{id}/integrations/with-config', () => {
  it('saves only a config its provider accepts: 400 when refused, 502 when unreachable, 201 active otherwise', async () => {
    const before = await rowsOfW1();
    const refused = await call('POST', `${base()}/with-config`, world.clientW1.token, {
      integrationId: CHAT,
      config: { webhookToken: 'T01AB/B02CD/unknowntoken' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.errors).toEqual([
      { field: 'config.webhookToken', reason: 'was refused by the chat provider (HTTP 404)' },
    ]);
    const channel = await call('POST', `${base()}/with-config`, world.clientW1.token, {
      integrationId: CHAT,
      config: { webhookToken: CHAT_TOKEN, channel: '#nope' },
    });
    expect(channel.body.error.details.errors).toEqual([{ field: 'config.channel', reason: 'was refused by the chat provider (HTTP 400)' }]);
    const down = await call('POST', `${base()}/with-config`, world.clientW1.token, {
      integrationId: CHAT,
      config: { webhookToken: CHAT_DOWN_TOKEN },
    });
    expect(down.status).toBe(502);
    expect(down.body.error).toMatchObject({ code: 'INTEGRATION_PROVIDER_ERROR', details: { reason: 'the provider answered HTTP 503' } });
    expect(await rowsOfW1()).toEqual(before);

    const created = await call('POST', `${base()}/with-config`, world.clientW1.token, {
      integrationId: CHAT,
      config: { webhookToken: CHAT_TOKEN, channel: '#payments' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ status: 'active', config: { webhookToken: '********', channel: '#payments' } });
    expect(created.body.data.lastValidatedAt).not.toBeNull();
    const [entry] = await auditEntries(h, { action: 'integration.create', resourceId: created.body.data.id });
    expect(entry?.metadata).toMatchObject({ validated: true, integrationKey: 'chat-notifier' });
    expect(
      (await call('POST', `${base()}/with-config`, world.clientW1.token, { integrationId: CHAT, config: { webhookToken: CHAT_TOKEN } }))
        .status,
    ).toBe(409);
  });
});

describe('PATCH, disable, status, get, delete', () => {
  it('merges config field by field, keeps secrets left out or sent back masked, and asks for a new validation', async () => {
    acceptedKycKeys = new Set([KYC_KEY]);
    const path = `${base()}/${KYC}`;
    const changed = await call('PATCH', path, world.clientW1.token, { config: { levelName: 'enhanced-kyc', apiKey: '********' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({
      status: 'pending',
      errorMessage: null,
      lastValidatedAt: null,
      config: { apiKey: '********', webhookSecret: '********', environment: 'sandbox', levelName: 'enhanced-kyc' },
    });
    // The stored key was kept: the provider accepts the re-check.
    const recheck = await validate(KYC);
    expect(recheck.body.data).toMatchObject({ valid: true, saved: true });

    const removed = await call('PATCH', path, world.clientW1.token, { config: { webhookSecret: null }, metadata: { owner: 'ops' } });
    expect(removed.body.data.config).toEqual({ apiKey: '********', environment: 'sandbox', levelName: 'enhanced-kyc' });
    expect(removed.body.data.metadata).toEqual({ owner: 'ops' });
    const [entry] = await auditEntries(h, { action: 'integration.update', resourceId: removed.body.data.id });
    expect(entry?.changes).toMatchObject({
      'config.webhookSecret': { from: '[redacted]', to: null },
      metadata: { from: {}, to: { owner: 'ops' } },
    });

    const before = await h.sql`select * from workspace.workspace_integrations where id = ${removed.body.data.id}`;
    const bad = await call('PATCH', path, world.clientW1.token, { config: { apiKey: null, environment: 'prod', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'config.apiKey',
      'config.environment',
      'config.extra',
    ]);
    expect((await call('PATCH', path, world.clientW1.token, {})).status).toBe(400);
    expect((await call('PATCH', path, world.clientW1.token, { status: 'active' })).status).toBe(400);
    expect(await h.sql`select * from workspace.workspace_integrations where id = ${removed.body.data.id}`).toEqual(before);

    const rotated = await call('PATCH', path, world.clientW1.token, { config: { apiKey: KYC_LIVE_KEY, environment: 'live' } });
    expect(rotated.body.data.status).toBe('pending');
    const [row] = await h.sql`select secrets_sealed from workspace.workspace_integrations where id = ${removed.body.data.id}`;
    const box = createSecretBox(createKeyring({ key: undefined, appEnv: 'local' }));
    expect(JSON.parse(box.open(row!.secrets_sealed, `workspace_integrations.secrets:${removed.body.data.id}`))).toEqual({
      apiKey: KYC_LIVE_KEY,
    });
    const [rotation] = await auditEntries(h, { action: 'integration.update', resourceId: removed.body.data.id });
    expect(rotation?.changes).toMatchObject({
      'config.apiKey': { from: '[redacted]', to: '[redacted]' },
      'config.environment': { from: 'sandbox', to: 'live' },
    });
  });

  it('disables (idempotently), switches back on with PATCH enabled, gets by kind or own id, deletes', async () => {
    const path = `${base()}/${EXPORT}`;
    const disabled = await call('POST', `${path}/disable`, world.clientW1.token);
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.data.status).toBe('disabled');
    expect((await call('POST', `${path}/disable`, world.clientW1.token)).body.data.status).toBe('disabled');
    expect((await call('GET', `${path}/status`, world.clientW1.token)).body.data).toMatchObject({
      status: 'disabled',
      needsValidation: false,
    });
    const enabled = await call('PATCH', path, world.clientW1.token, { enabled: true });
    expect(enabled.body.data.status).toBe('active');

    const byOwnId = await call('GET', `${base()}/${enabled.body.data.id}`, world.clientW1.token);
    expect(byOwnId.body.data).toEqual(enabled.body.data);
    const list = await call('GET', base(), world.clientW1.token);
    expect(list.body.data.map((i: { integration: { key: string } }) => i.integration.key)).toEqual([
      'accounting-export',
      'kyc-provider',
      'chat-notifier',
    ]);

    const removed = await h.call('DELETE', path, { token: world.clientW1.token });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect((await call('GET', path, world.clientW1.token)).status).toBe(404);
    expect((await call('POST', `${path}/disable`, world.clientW1.token)).status).toBe(404);
    expect((await h.call('DELETE', path, { token: world.clientW1.token })).status).toBe(404);
    const [entry] = await auditEntries(h, { action: 'integration.delete', resourceId: enabled.body.data.id });
    expect(entry).toMatchObject({ success: true, workspace_id: world.w1.id });
    // The kind can be set up again.
    expect((await call('POST', base(), world.clientW1.token, { integrationId: EXPORT, config: exportConfig() })).status).toBe(200);
  });

  it("lets a SUPER_ADMIN act on any workspace's integrations, and deletes them with their workspace", async () => {
    const ws = await call('POST', '/api/v1/workspaces', world.superAdmin.token, { name: 'Doomed', email: 'doomed@example.test' });
    const member = await insertUser(h, { role: 'CLIENT', workspaceId: ws.body.data.id, passwordHashOf: world.clientW1.id });
    const created = await call('POST', `/api/v1/workspaces/${ws.body.data.id}/integrations`, world.superAdmin.token, {
      integrationId: KYC,
      config: kycConfig(),
    });
    expect(created.status).toBe(200);
    expect((await call('GET', `/api/v1/workspaces/${ws.body.data.id}/integrations/${KYC}`, member.token)).status).toBe(200);
    expect((await h.call('DELETE', `/api/v1/workspaces/${ws.body.data.id}`, { token: world.superAdmin.token })).status).toBe(204);
    expect(await h.sql`select id from workspace.workspace_integrations where id = ${created.body.data.id}`).toEqual([]);
  });
});

describe('secrets', () => {
  it('never appear in an answer, a log line or an audit entry', async () => {
    expect(answers.length).toBeGreaterThan(30);
    const audit = JSON.stringify(await h.sql`select * from workspace.audit_logs`);
    const logs = lines.join('\n');
    expect(logs).toContain('integration provider check gave no usable answer');
    for (const secret of SECRETS) {
      for (const answer of answers) expect(answer).not.toContain(secret);
      expect(audit).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
