import { randomUUID } from 'node:crypto';
import { STREAMS } from '@holdfast/contracts';
import { prefixedName } from '@holdfast/messaging';
import {
  call,
  createClient,
  createTestBus,
  createTestDatabase,
  key,
  type Loose,
  newBootstrapKey,
  type Running,
  startPayments,
  type TestBus,
  type TestDatabase,
  testSql,
  tokenFor,
} from '../helpers.js';

export const LIMITS = { RATE_LIMIT_PUBLIC: '10000', RATE_LIMIT_STANDARD: '10000', RATE_LIMIT_HIGH: '10000', RATE_LIMIT_ADMIN: '10000' };

export interface Env {
  db: TestDatabase;
  nats: TestBus;
  svc: Running;
  sql: ReturnType<typeof testSql>;
  admin: string;
  stop: () => Promise<void>;
}

export async function startEnv(env: Record<string, string> = {}): Promise<Env> {
  const admin = env.APP_ENV === 'production' ? newBootstrapKey().replace('hf_test_', 'hf_live_') : newBootstrapKey();
  const [db, nats] = await Promise.all([createTestDatabase(), createTestBus()]);
  const svc = await startPayments(db, nats, { PAYMENTS_BOOTSTRAP_API_KEY: admin, ...LIMITS, ...env });
  const sql = testSql(db);
  return {
    db,
    nats,
    svc,
    sql,
    admin,
    stop: async () => {
      await svc.stop();
      await sql.end();
      await nats.dispose();
      await db.drop();
    },
  };
}

export interface Tenant {
  platformId: string;
  apiKey: string;
  /** A v2 token with read, write and move. */
  token: string;
}

/** A platform with an API key (read+write transactions) and a token (read, write, move). */
export async function newTenant(e: Env, settings: Record<string, unknown> = {}): Promise<Tenant> {
  const made = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
    headers: key(e.admin),
    body: { name: `tenant ${randomUUID().slice(0, 8)}`, scopes: ['read:transactions', 'write:transactions', 'write:templates'], settings },
  });
  if (made.status !== 201) throw new Error(`platform: ${made.status} ${JSON.stringify(made.body)}`);
  const client = await createClient(e.svc.url, e.admin, {
    name: 'client',
    scopes: ['read:transactions', 'write:transactions', 'move:transactions'],
    platformId: made.body.platformId,
  });
  return { platformId: made.body.platformId, apiKey: made.body.apiKey, token: await tokenFor(e.svc.url, client) };
}

/** A random EVM-looking address. */
export const address = () => `0x${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '').slice(0, 8)}`;

export const count = async (e: Env, table: string) => Number((await e.sql`select count(*)::int as n from ${e.sql(table)}`)[0]?.n);

/** Every event on the EVENTS stream so far (type, data). */
export interface StreamEvent {
  type: string;
  platformId?: string;
  workspaceId?: string | null;
  data: Loose;
}

export async function streamEvents(e: Env): Promise<StreamEvent[]> {
  const stream = prefixedName(e.nats.bus, STREAMS.EVENTS.name);
  const info = await e.nats.bus.jsm.streams.info(stream);
  const out: StreamEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const message = await e.nats.bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (message) out.push(message.json<StreamEvent>());
  }
  return out;
}

/** Waits (bounded) until `predicate` holds on the stream's events. */
export async function waitForEvents(e: Env, predicate: (events: Awaited<ReturnType<typeof streamEvents>>) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await streamEvents(e);
    if (predicate(events)) return events;
    if (Date.now() > deadline) throw new Error(`stream never satisfied the predicate; saw ${events.map((x) => x.type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
