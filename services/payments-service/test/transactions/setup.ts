import { randomUUID } from 'node:crypto';
import { STREAMS } from '@holdfast/contracts';
import { prefixedName } from '@holdfast/messaging';
import { type Loose, newPlatform, type PaymentsEnv } from '../helpers.js';

export interface Tenant {
  platformId: string;
  apiKey: string;
  /** A v2 token with read, write and move. */
  token: string;
}

/** A platform with an API key (read+write transactions) and a token (read, write, move). */
export async function newTenant(e: PaymentsEnv, settings: Record<string, unknown> = {}): Promise<Tenant> {
  const { platformId, apiKey, token } = await newPlatform(e, {
    scopes: ['read:transactions', 'write:transactions', 'write:templates'],
    clientScopes: ['read:transactions', 'write:transactions', 'move:transactions'],
    settings,
  });
  return { platformId, apiKey, token };
}

/** A random EVM-looking address. */
export const address = () => `0x${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '').slice(0, 8)}`;

export const count = async (e: PaymentsEnv, table: string) => Number((await e.sql`select count(*)::int as n from ${e.sql(table)}`)[0]?.n);

/** Every event on the EVENTS stream so far (type, data). */
export interface StreamEvent {
  type: string;
  platformId?: string;
  workspaceId?: string | null;
  data: Loose;
}

export async function streamEvents(e: PaymentsEnv): Promise<StreamEvent[]> {
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
export async function waitForEvents(
  e: PaymentsEnv,
  predicate: (events: Awaited<ReturnType<typeof streamEvents>>) => boolean,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await streamEvents(e);
    if (predicate(events)) return events;
    if (Date.now() > deadline) throw new Error(`stream never satisfied the predicate; saw ${events.map((x) => x.type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
