import { randomBytes } from 'node:crypto';
import { type HttpApp, startForTest } from '@holdfast/http-kit';
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase, testLogger } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { request } from 'undici';
import { createPaymentsService, paymentsConfigFrom } from '../src/index.js';

export interface Running {
  url: string;
  stop: () => Promise<void>;
}

export const newBootstrapKey = () => `hf_test_${randomBytes(32).toString('base64url')}`;

/** A payments instance on its own free port, on the given database and NATS prefix. */
export async function startPayments(
  db: TestDatabase,
  nats: TestBus,
  env: Record<string, string> = {},
  beforeListen?: (app: HttpApp) => void,
): Promise<Running> {
  const config = paymentsConfigFrom({
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    // No chain is needed by the access routes; readiness is not what these files test.
    CHAIN_RPC_URLS: 'base-sepolia=http://127.0.0.1:9',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const handle = await createPaymentsService(config, testLogger('payments-service'));
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
  options: { headers?: Record<string, string>; body?: unknown; form?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.form) {
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
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Direct access to the test database, for side effects a test asserts or arranges (expiry). */
export function testSql(db: TestDatabase) {
  return postgres(db.url, { max: 2, onnotice: () => {}, connection: { search_path: 'payments' } });
}

export async function createClient(base: string, adminKey: string, body: Record<string, unknown>) {
  const res = await call(base, 'POST', '/api/v1/oauth/clients', { headers: key(adminKey), body });
  if (res.status !== 201) throw new Error(`client creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; clientId: string; clientSecret: string; scopes: string[]; platformId: string };
}

export async function tokenFor(base: string, client: { clientId: string; clientSecret: string }, scope?: string, version = 'v2') {
  const res = await call(base, 'POST', `/api/${version}/oauth/token`, {
    body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, ...(scope ? { scope } : {}) },
  });
  if (res.status !== 200) throw new Error(`token failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.access_token as string;
}

export { createTestBus, createTestDatabase, type TestBus, type TestDatabase };
