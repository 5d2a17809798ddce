import { randomBytes } from 'node:crypto';
import { DEFAULT_KEY_SCOPES, PLATFORM_SCOPES_NEEDED, type Scope } from '@holdfast/contracts';
import { type HttpApp, startForTest } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import {
  createTestBus,
  createTestDatabase,
  createTestStores,
  type TestBus,
  type TestDatabase,
  testLogger,
  testRedisUrl,
} from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { request } from 'undici';
import { createPaymentsService, paymentsConfigFrom } from '../../src/index.js';

export interface Running {
  url: string;
  stop: () => Promise<void>;
}

export const newBootstrapKey = () => `hf_test_${randomBytes(32).toString('base64url')}`;

/** A payments instance on its own free port, on the given database and NATS prefix; silent unless given a logger. */
export async function startPayments(
  db: TestDatabase,
  nats: TestBus,
  env: Record<string, string> = {},
  beforeListen?: (app: HttpApp) => void,
  logger: Logger = testLogger('payments-service'),
): Promise<Running> {
  const config = paymentsConfigFrom({
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    REDIS_URL: testRedisUrl(),
    // No chain is needed by the access routes; readiness is not what these files test.
    CHAIN_RPC_URLS: 'base-sepolia=http://127.0.0.1:9',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const handle = await createPaymentsService(config, logger);
  beforeListen?.(handle.app);
  return startForTest(handle);
}

/** Test answers are asserted field by field, so their bodies are left untyped. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Loose = any;

export interface Answer<T = Loose> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

/** JSON in, JSON (or nothing) out; headers flattened to strings. */
export async function call<T = Loose>(
  base: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; form?: Record<string, string>; json?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    // JSON text as written (numbers JSON.stringify could not produce, such as 0.1234567890123456789).
    headers['content-type'] = 'application/json';
    body = options.json;
  } else if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await request(`${base}${path}`, { method, headers, body });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) flat[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return { status: res.statusCode, headers: flat, body: (text ? JSON.parse(text) : undefined) as T };
}

export const key = (apiKey: string) => ({ 'x-api-key': apiKey });

/** Adds a template without controls to the library of the key's platform (POST /api/v1/controls/templates); the answer. */
export const addEmptyTemplate = (base: string, apiKey: string, name: string) =>
  call(base, 'POST', '/api/v1/controls/templates', { headers: key(apiKey), body: { name, controls: [] } });
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Direct access to the test database, for side effects a test asserts or arranges (expiry). */
export function testSql(db: TestDatabase) {
  return postgres(db.url, { max: 2, onnotice: () => {}, connection: { search_path: 'payments' } });
}

export type TestSql = ReturnType<typeof testSql>;

/** Rate limits far above what a test file sends, so only a file about rate limits ever meets one (it passes its own). */
export const GENEROUS_LIMITS = {
  RATE_LIMIT_PUBLIC: '10000',
  RATE_LIMIT_STANDARD: '10000',
  RATE_LIMIT_HIGH: '10000',
  RATE_LIMIT_ADMIN: '10000',
} as const;

/** The secrets payments must be given outside local (values of the right shape, none real). */
export const NON_LOCAL_SECRETS = {
  INTERNAL_API_KEY: 'k'.repeat(32),
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  IDENTITY_PROVIDER_URL: 'https://idp.example.com/',
  IDENTITY_PROVIDER_API_KEY: 'i'.repeat(24),
  IDENTITY_PROVIDER_WEBHOOK_SECRET: 's'.repeat(32),
  PAYMENTS_PUBLIC_URL: 'https://payments.example.com',
} as const;

/** A payments instance in production on the test database and NATS (a mainnet RPC that answers nothing). */
export const PRODUCTION_ENV = {
  ...NON_LOCAL_SECRETS,
  APP_ENV: 'production',
  NATS_USER: 'payments-service',
  NATS_PASSWORD: 'nats-test-password',
  PAYMENTS_V1_SUNSET_ENFORCED: 'false',
  CHAIN_RPC_URLS: 'base=http://127.0.0.1:9',
} as const;

/** A database, a NATS prefix, a payments instance on them, direct SQL, and the bootstrap (admin) API key. */
export interface PaymentsEnv {
  db: TestDatabase;
  nats: TestBus;
  svc: Running;
  sql: TestSql;
  admin: string;
  /** Stops the instance and drops everything it was given. */
  stop: () => Promise<void>;
}

/**
 * The set-up of a payments test file: its own database and NATS prefix, an instance with a bootstrap
 * API key (`admin`; hf_live_ when APP_ENV is production) and generous rate limits; `env` adds to or
 * overrides that configuration; `logger` (e.g. `capturingLogger` of test-fixtures) receives its log lines.
 */
export async function startPaymentsEnv(
  env: Record<string, string> = {},
  beforeListen?: (app: HttpApp) => void,
  logger?: Logger,
): Promise<PaymentsEnv> {
  const admin =
    env.PAYMENTS_BOOTSTRAP_API_KEY ??
    (env.APP_ENV === 'production' ? newBootstrapKey().replace('hf_test_', 'hf_live_') : newBootstrapKey());
  const stores = await createTestStores({ searchPath: 'payments' });
  const svc = await startPayments(
    stores.db,
    stores.nats,
    { PAYMENTS_BOOTSTRAP_API_KEY: admin, ...GENEROUS_LIMITS, ...env },
    beforeListen,
    logger,
  );
  return {
    ...stores,
    svc,
    admin,
    stop: async () => {
      await svc.stop();
      await stores.stop();
    },
  };
}

export interface OAuthClient {
  id: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  platformId: string;
}

export interface PlatformSpec {
  /** The API key's scopes (the route's default when absent). */
  scopes?: string[];
  name?: string;
  settings?: Record<string, unknown>;
  /** With these, an OAuth client of the platform and a token holding all of them. */
  clientScopes?: string[];
}

export interface KeyedPlatform {
  platformId: string;
  apiKey: string;
}

export interface CredentialedPlatform extends KeyedPlatform {
  client: OAuthClient;
  token: string;
}

/** A platform created by the admin key: its API key, and with `clientScopes` an OAuth client and a token. */
export async function newPlatform(
  e: Pick<PaymentsEnv, 'svc' | 'admin'>,
  spec: PlatformSpec & { clientScopes: string[] },
): Promise<CredentialedPlatform>;
export async function newPlatform(e: Pick<PaymentsEnv, 'svc' | 'admin'>, spec?: PlatformSpec): Promise<KeyedPlatform>;
export async function newPlatform(
  e: Pick<PaymentsEnv, 'svc' | 'admin'>,
  spec: PlatformSpec = {},
): Promise<KeyedPlatform | CredentialedPlatform> {
  const name = spec.name ?? `platform ${randomBytes(4).toString('hex')}`;
  // A client never holds more than its platform covers: with client scopes and no platform scopes
  // named, the platform gets the read-only default plus what the client's scopes need.
  const scopes =
    spec.scopes ??
    (spec.clientScopes
      ? [...new Set([...DEFAULT_KEY_SCOPES, ...spec.clientScopes.flatMap((s) => PLATFORM_SCOPES_NEEDED[s as Scope] ?? [])])]
      : undefined);
  const made = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
    headers: key(e.admin),
    body: { name, ...(scopes ? { scopes } : {}), ...(spec.settings ? { settings: spec.settings } : {}) },
  });
  if (made.status !== 201) throw new Error(`platform: ${made.status} ${JSON.stringify(made.body)}`);
  const platform: KeyedPlatform = { platformId: made.body.platformId, apiKey: made.body.apiKey };
  if (!spec.clientScopes) return platform;
  const client = await createClient(e.svc.url, e.admin, {
    name: `${name} client`,
    scopes: spec.clientScopes,
    platformId: platform.platformId,
  });
  return { ...platform, client, token: await tokenFor(e.svc.url, client) };
}

export async function createClient(base: string, adminKey: string, body: Record<string, unknown>) {
  const res = await call(base, 'POST', '/api/v1/oauth/clients', { headers: key(adminKey), body });
  if (res.status !== 201) throw new Error(`client creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as OAuthClient;
}

export async function tokenFor(base: string, client: { clientId: string; clientSecret: string }, scope?: string, version = 'v2') {
  const res = await call(base, 'POST', `/api/${version}/oauth/token`, {
    body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, ...(scope ? { scope } : {}) },
  });
  if (res.status !== 200) throw new Error(`token failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.access_token as string;
}

export { createTestBus, createTestDatabase, type TestBus, type TestDatabase };
