import { createHmac, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForTest } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import type { Bus } from '@holdfast/messaging';
import { createPaymentsService, paymentsConfigFrom } from '@holdfast/payments-service';
import { createTestBus, createTestDatabase, fileFixture, standIn, type TestBus, testLogger, testRedisUrl } from '@holdfast/test-fixtures';
import { createDispatcherService, dispatcherConfigFrom } from '@holdfast/webhook-dispatcher';
import postgres from 'postgres';
import { Agent, type FormData, request } from 'undici';
import { createWorkspaceService, type WorkspaceOverrides, workspaceConfigFrom } from '../../src/index.js';
import { workspaceKeys } from '../../src/modules/access/tokens.js';

export const TEST_JWT_SECRET = 'test-secret-for-workspace-jwts-0123456789abcdef';
export const SUPER_EMAIL = 'root@holdfast.test';
export const SUPER_PASSWORD = 'Root-Passw0rd!2026';
export const PASSWORD = 'Str0ng!Password';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by assertions, not by types
export type Json = any;

export interface Answer<T = Json> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}

/** Another process of the stack on the same database and NATS prefix, stoppable and startable again. */
export interface Peer {
  url: string;
  running: () => boolean;
  stop: () => Promise<void>;
  start: () => Promise<void>;
}

export interface Peers {
  payments: Peer;
  dispatcher: Peer;
}

export interface HarnessOptions {
  /** Start payments-service and the webhook-dispatcher too (the routes that forward to them need them). */
  peers?: boolean;
  overrides?: WorkspaceOverrides;
  /** Extra variables of the dispatcher. */
  dispatcherEnv?: Record<string, string>;
  /** The service's logger (tests that read what was logged pass their own). */
  logger?: Logger;
}

export interface Harness {
  url: string;
  /** The environment the service was configured from (its database, NATS prefix...). */
  env: Record<string, string>;
  /** The file's NATS connection (publish events to it); the same as `nats.bus`. */
  bus: Bus;
  sql: postgres.Sql;
  storageDir: string;
  /** The file's NATS connection and prefix (publish events, send commands). */
  nats: TestBus;
  /** Present when started with `peers: true`. */
  peers: Peers | undefined;
  call: <T = Json>(method: string, path: string, options?: CallOptions) => Promise<Answer<T>>;
  login: (email: string, password?: string) => Promise<{ accessToken: string; refreshToken: string; user: Json }>;
  stop: () => Promise<void>;
}

/** Fast retries of the commands owed to payments and the dispatcher, so tests see them land. */
const FAST_REMOTE_TASKS: WorkspaceOverrides = { remoteTasks: { pollIntervalMs: 100, retryBaseMs: 100, retryMaxMs: 400 } };

async function startPeer(start: () => Promise<{ url: string; stop: () => Promise<void> }>): Promise<Peer> {
  let current: { url: string; stop: () => Promise<void> } | undefined = await start();
  const peer: Peer = {
    url: current.url,
    running: () => current !== undefined,
    stop: async () => {
      await current?.stop();
      current = undefined;
    },
    start: async () => {
      if (current) return;
      current = await start();
      peer.url = current.url;
    },
  };
  return peer;
}

/**
 * One workspace-service on a free port with its own database, NATS prefix and storage directory;
 * with `peers`, a real payments-service and webhook-dispatcher on the same database and prefix.
 */
export async function startHarness(env: Record<string, string> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const [db, nats] = await Promise.all([createTestDatabase(), createTestBus()]);
  const shared = {
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    REDIS_URL: testRedisUrl(),
    LOG_LEVEL: 'silent',
  };
  const peers: Peers | undefined = options.peers
    ? {
        payments: await startPeer(async () =>
          startForTest(
            await createPaymentsService(
              paymentsConfigFrom({ ...shared, CHAIN_RPC_URLS: 'base-sepolia=http://127.0.0.1:9' }),
              testLogger('payments-service'),
            ),
          ),
        ),
        dispatcher: await startPeer(async () =>
          startForTest(
            await createDispatcherService(
              dispatcherConfigFrom({ ...shared, WEBHOOK_RETRY_SCHEDULE: '1s', ...options.dispatcherEnv }),
              testLogger('webhook-dispatcher'),
              { pollIntervalMs: 100 },
            ),
          ),
        ),
      }
    : undefined;
  const storageDir = await mkdtemp(join(tmpdir(), 'hf-workspace-storage-'));
  const serviceEnv: Record<string, string> = {
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    REDIS_URL: testRedisUrl(),
    JWT_SECRET: TEST_JWT_SECRET,
    WORKSPACE_BOOTSTRAP_EMAIL: SUPER_EMAIL,
    WORKSPACE_BOOTSTRAP_PASSWORD: SUPER_PASSWORD,
    WORKSPACE_STORAGE_DIR: storageDir,
    // The tests make far more calls per minute than a client would.
    RATE_LIMIT_PUBLIC: '100000',
    RATE_LIMIT_STANDARD: '100000',
    RATE_LIMIT_HIGH: '100000',
    RATE_LIMIT_ADMIN: '100000',
    // Integration kinds that call a provider are available; nothing listens there (tests that call
    // a provider pass their stand-in's URL).
    INTEGRATION_PROVIDER_URLS: 'kyc-provider=https://127.0.0.1:9/kyc,chat-notifier=https://127.0.0.1:9/chat',
    ...env,
  };
  const config = workspaceConfigFrom(serviceEnv);
  const service = await startForTest(
    await createWorkspaceService(config, options.logger ?? testLogger('workspace-service'), {
      ...FAST_REMOTE_TASKS,
      ...options.overrides,
      remoteTasks: { ...FAST_REMOTE_TASKS.remoteTasks, ...options.overrides?.remoteTasks },
    }),
  );
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });

  const agent = new Agent();
  const call = callerOf(service.url, agent);

  const login = async (email: string, password = PASSWORD) => {
    const res = await call<Json>('POST', '/identity/login', { body: { email, password } });
    if (res.status !== 200) throw new Error(`login of ${email} failed: ${res.status} ${res.text}`);
    return res.body.data;
  };

  return {
    url: service.url,
    env: serviceEnv,
    bus: nats.bus,
    sql,
    storageDir,
    nats,
    peers,
    call,
    login,
    stop: async () => {
      await sql.end({ timeout: 5 });
      await agent.close();
      await service.stop();
      await peers?.dispatcher.stop();
      await peers?.payments.stop();
      await nats.dispose();
      await db.drop();
      await rm(storageDir, { recursive: true, force: true });
    },
  };
}

/**
 * Calls one service over HTTP: JSON in and out (a text answer stays text). Through `agent`, this
 * undici's own, not the global dispatcher: that one is whichever undici loaded first, Node's
 * built-in one included, and a multipart body of this undici through Node's is never sent (the
 * avatar uploads hung when the harness was imported before the fixtures).
 */
function callerOf(url: string, agent: Agent): Harness['call'] {
  return async <T>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | FormData | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const res = await request(`${url}${path}`, { method: method as 'GET', headers, body, dispatcher: agent });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.statusCode, headers: res.headers as Answer['headers'], body: parsed as T, text };
  };
}

/**
 * Another instance of workspace-service on the harness's database and NATS prefix, configured like
 * it (with `env` on top): a second replica behind the same load balancer.
 */
export async function startInstance(
  h: Harness,
  env: Record<string, string> = {},
): Promise<{ call: Harness['call']; stop: () => Promise<void> }> {
  const config = workspaceConfigFrom({ ...h.env, ...env });
  const service = await startForTest(await createWorkspaceService(config, testLogger('workspace-service'), FAST_REMOTE_TASKS));
  const agent = new Agent();
  return {
    call: callerOf(service.url, agent),
    stop: async () => {
      await agent.close();
      await service.stop();
    },
  };
}

/** An HS256 JWT signed like the service's (its key derived from JWT_SECRET), with any claims (an expired token, a forged one). */
export function signJwt(claims: Record<string, unknown>, secret: string | Buffer = workspaceKeys(TEST_JWT_SECRET).accessTokens): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const head = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

/** The session (`sid`) an access token names. */
export function sessionIdOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid;
}

/** The claims of a user's sandbox access token of session `sid`, issued at `iat` (seconds) and valid `lifetimeS` seconds. */
export function accessClaims(sub: string, sid: string, iat: number, lifetimeS: number): Record<string, unknown> {
  return { sub, sid, env: 'sandbox', typ: 'access', iss: 'holdfast-workspace', aud: 'holdfast:workspace-user', iat, exp: iat + lifetimeS };
}

/** An access token for the user that expired an hour ago. */
export function expiredTokenFor(userId: string): string {
  return signJwt(accessClaims(userId, randomUUID(), Math.floor(Date.now() / 1000) - 7200, 3600));
}

let counter = 0;
/** A unique e-mail address for this run. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${counter}-${randomUUID().slice(0, 8)}@example.test`;
}

/**
 * Two tenants and an operator, with a token each (logged in once):
 * W1 with an ADMIN and a CLIENT, W2 with an ADMIN, and the bootstrap SUPER_ADMIN.
 */
export interface World {
  superAdmin: { id: string; token: string };
  w1: { id: string; slug: string };
  w2: { id: string; slug: string };
  adminW1: { id: string; email: string; token: string; refreshToken: string };
  clientW1: { id: string; email: string; token: string; refreshToken: string };
  adminW2: { id: string; email: string; token: string; refreshToken: string };
}

/**
 * A workspace created `pending` and approved by the operator (`token`, a SUPER_ADMIN's) as
 * `status: active`, so it may be issued credentials; `{approve: false}` leaves it pending.
 */
export async function createWorkspace(
  h: Harness,
  token: string,
  name: string,
  options: { approve?: boolean } = {},
): Promise<{ id: string; slug: string }> {
  const res = await h.call('POST', '/api/v1/workspaces', {
    token,
    body: { name, email: `${name.toLowerCase().replace(/\W+/g, '')}@example.test` },
  });
  if (res.status !== 201) throw new Error(`workspace ${name}: ${res.status} ${res.text}`);
  const workspace = { id: res.body.data.id as string, slug: res.body.data.slug as string };
  if (options.approve ?? true) await setWorkspaceStatus(h, token, workspace.id, 'active');
  return workspace;
}

/** The operator's (a SUPER_ADMIN's) status change of a workspace: approve (`active`), suspend, deactivate. */
export async function setWorkspaceStatus(h: Harness, token: string, id: string, status: string): Promise<Json> {
  const res = await h.call('PUT', `/api/v1/workspaces/${id}`, { token, body: { status } });
  if (res.status !== 200) throw new Error(`workspace ${id} -> ${status}: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function createUser(
  h: Harness,
  token: string,
  role: 'admin' | 'client',
  workspaceId: string | null,
  email = uniqueEmail(role),
) {
  const res = await h.call('POST', '/api/v1/users', {
    token,
    body: { email, password: PASSWORD, role, workspaceId, firstName: role, lastName: 'Test' },
  });
  if (res.status !== 201) throw new Error(`user ${email}: ${res.status} ${res.text}`);
  return { id: res.body.data.id as string, email };
}

export async function buildWorld(h: Harness): Promise<World> {
  const root = await h.login(SUPER_EMAIL, SUPER_PASSWORD);
  const [w1, w2] = await Promise.all([
    createWorkspace(h, root.accessToken, 'Tenant One'),
    createWorkspace(h, root.accessToken, 'Tenant Two'),
  ]);
  const [a1, c1, a2] = await Promise.all([
    createUser(h, root.accessToken, 'admin', w1.id),
    createUser(h, root.accessToken, 'client', w1.id),
    createUser(h, root.accessToken, 'admin', w2.id),
  ]);
  const [ta1, tc1, ta2] = await Promise.all([h.login(a1.email), h.login(c1.email), h.login(a2.email)]);
  return {
    superAdmin: { id: root.user.id, token: root.accessToken },
    w1,
    w2,
    adminW1: { ...a1, token: ta1.accessToken, refreshToken: ta1.refreshToken },
    clientW1: { ...c1, token: tc1.accessToken, refreshToken: tc1.refreshToken },
    adminW2: { ...a2, token: ta2.accessToken, refreshToken: ta2.refreshToken },
  };
}

/**
 * A harness and its world: the set-up of most test files (one service per file). A world that
 * cannot be built stops the service it started.
 */
export async function startWorld(env: Record<string, string> = {}, options: HarnessOptions = {}): Promise<{ h: Harness; world: World }> {
  const h = await startHarness(env, options);
  try {
    return { h, world: await buildWorld(h) };
  } catch (error) {
    await h.stop();
    throw error;
  }
}

/**
 * The set-up of most test files: `startWorld(env, options)` before the file's tests, the service
 * stopped after them (a fileFixture). Call it at the file's top level; `h` and `world` stand for
 * the ones started.
 */
export function worldPerFile(env: Record<string, string> = {}, options: HarnessOptions = {}): { h: Harness; world: World } {
  let ready = false;
  const started = fileFixture(async () => {
    const { h, world } = await startWorld(env, options);
    ready = true;
    return { h, world, stop: () => h.stop() };
  });
  return {
    h: standIn(
      () => started.h,
      () => ready,
    ),
    world: standIn(
      () => started.world,
      () => ready,
    ),
  };
}

/** The audit entries of an action, newest first. */
export async function auditEntries(h: Harness, where: { action?: string; resourceId?: string; userId?: string } = {}) {
  const rows = await h.sql<
    {
      id: string;
      user_id: string | null;
      workspace_id: string | null;
      action: string;
      resource_type: string;
      resource_id: string | null;
      success: boolean;
      error_message: string | null;
      changes: Record<string, unknown> | null;
      ip_address: string | null;
      user_agent: string | null;
      metadata: Record<string, unknown>;
      details: string | null;
    }[]
  >`select * from workspace.audit_logs
    where (${where.action ?? null}::text is null or action = ${where.action ?? null})
      and (${where.resourceId ?? null}::text is null or resource_id = ${where.resourceId ?? null})
      and (${where.userId ?? null}::uuid is null or user_id = ${where.userId ?? null})
    order by seq desc`;
  return rows;
}
