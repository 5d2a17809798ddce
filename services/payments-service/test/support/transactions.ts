import { randomUUID } from 'node:crypto';
import { STREAMS } from '@holdfast/contracts';
import { streamMessages } from '@holdfast/messaging/testing';
import { type Loose, newPlatform, type PaymentsEnv } from './harness.js';

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

export const streamEvents = (e: PaymentsEnv) => streamMessages<StreamEvent>(e.nats.bus, STREAMS.EVENTS.name);

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
