import { type DomainEvent, newEventId } from '@holdfast/contracts';
import { appendToOutboxSql } from '@holdfast/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, type Loose, newPlatform, type PaymentsEnv, startPaymentsEnv } from '../support/harness.js';
import { address } from '../support/transactions.js';

// GET /api/v2/events/stream on one real instance (PostgreSQL, JetStream, the outbox relay): the
// platform's own events live, resumable with Last-Event-ID, never another platform's.

interface SseEvent {
  id: string;
  event: string;
  data: Loose;
}

/** An open stream: the answer's status and headers, the events as they arrive, and a way to close it. */
interface OpenStream {
  status: number;
  headers: Headers;
  body: Loose;
  events: SseEvent[];
  comments: string[];
  /** Resolves once `n` events arrived (bounded). */
  waitFor: (n: number, timeoutMs?: number) => Promise<SseEvent[]>;
  close: () => void;
}

async function openStream(url: string, token: string | undefined, options: { lastEventId?: string; types?: string } = {}) {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const query = options.types ? `?types=${encodeURIComponent(options.types)}` : '';
  const res = await fetch(`${url}/api/v2/events/stream${query}`, { headers, signal: controller.signal });
  const stream: OpenStream = {
    status: res.status,
    headers: res.headers,
    body: undefined,
    events: [],
    comments: [],
    close: () => controller.abort(),
    waitFor: async (n, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (stream.events.length < n) {
        if (Date.now() > deadline) throw new Error(`only ${stream.events.length} of ${n} events arrived`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return stream.events;
    },
  };
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    stream.body = await res.json();
    return stream;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
            }
          }
          if (fields.data !== undefined)
            stream.events.push({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) });
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return stream;
}

let e: PaymentsEnv;
let mine: { platformId: string; token: string };
let theirs: { platformId: string; token: string };

const SCOPES = ['read:transactions', 'move:transactions', 'read:disputes'];
const createTx = (token: string) =>
  call(e.svc.url, 'POST', '/api/v2/transactions', {
    headers: bearer(token),
    body: { fromAddress: address(), toAddress: address(), amount: 12.5, orchestrationType: 'raw' },
  });

beforeAll(async () => {
  // A short heartbeat so an idle stream shows one within the test (the default is 15 s).
  e = await startPaymentsEnv({ EVENT_STREAM_HEARTBEAT_INTERVAL: '300ms' });
  [mine, theirs] = await Promise.all([newPlatform(e, { clientScopes: SCOPES }), newPlatform(e, { clientScopes: SCOPES })]);
});
afterAll(async () => e?.stop());

describe('events stream: happy path', () => {
  it('sends transaction.created of the platform as it happens, as the webhook delivery body, with a resumable id', async () => {
    const stream = await openStream(e.svc.url, mine.token);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(stream.headers.get('cache-control')).toBe('no-store');
      expect(stream.headers.get('x-request-id')).toMatch(/^req_/);
      const created = await createTx(mine.token);
      expect(created.status).toBe(201);
      const [event] = await stream.waitFor(1);
      expect(event?.event).toBe('transaction.created');
      expect(event?.id).toMatch(/^[0-9]+$/);
      expect(Object.keys(event?.data).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
      expect(event?.data).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        type: 'transaction.created',
        data: { transaction: { id: created.body.id, status: 'pending' } },
      });
      expect(stream.comments).toContain('connected');
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID with every event missed while disconnected, in order', async () => {
    const first = await openStream(e.svc.url, mine.token);
    const a = await createTx(mine.token);
    const [seen] = await first.waitFor(1);
    first.close();
    expect(seen?.data.data.transaction.id).toBe(a.body.id);
    // Two transactions while nobody listens.
    const b = await createTx(mine.token);
    const c = await createTx(mine.token);
    const resumed = await openStream(e.svc.url, mine.token, { lastEventId: seen?.id });
    try {
      const events = await resumed.waitFor(2);
      expect(events.map((x) => x.data.data.transaction.id)).toEqual([b.body.id, c.body.id]);
      expect(Number(events[0]?.id)).toBeGreaterThan(Number(seen?.id));
    } finally {
      resumed.close();
    }
  });

  it('sends only the requested types', async () => {
    const stream = await openStream(e.svc.url, mine.token, { lastEventId: '0', types: 'dispute.created' });
    try {
      await createTx(mine.token);
      await new Promise((r) => setTimeout(r, 1000));
      expect(stream.status).toBe(200);
      expect(stream.events).toEqual([]);
    } finally {
      stream.close();
    }
  });
});

describe('events stream: opt-in types', () => {
  it('leaves transaction.reorged out of a stream that names no types, and sends it to one that names it', async () => {
    const all = await openStream(e.svc.url, mine.token);
    const named = await openStream(e.svc.url, mine.token, { types: 'transaction.reorged,transaction.created' });
    try {
      const transaction = { id: '01a23d4c-0000-7000-8000-000000000001', status: 'pending' as const };
      const reorged = {
        id: newEventId(),
        type: 'transaction.reorged',
        createdAt: new Date().toISOString(),
        platformId: mine.platformId,
        workspaceId: null,
        data: {
          transaction,
          reason: 'reorg',
          previousStatus: 'escrowed',
          finality: 'confirmed',
          blockNumber: 7,
          blockHash: '0x1',
          txHash: '0x2',
        },
      } as DomainEvent;
      // As settlement writes it: into the outbox, published by the relay in order.
      await appendToOutboxSql(e.sql as never, 'payments', [reorged]);
      const marker = await createTx(mine.token);
      expect((await named.waitFor(2)).map((x) => x.event)).toEqual(['transaction.reorged', 'transaction.created']);
      const [first] = await all.waitFor(1);
      expect([first?.event, first?.data.data.transaction.id]).toEqual(['transaction.created', marker.body.id]);
      expect(all.events.some((x) => x.event === 'transaction.reorged')).toBe(false);
    } finally {
      all.close();
      named.close();
    }
  });
});

describe('events stream: heartbeat', () => {
  it('sends a `: heartbeat` comment on an idle stream at the configured interval, and no event', async () => {
    const stream = await openStream(e.svc.url, mine.token, { types: 'dispute.created' });
    try {
      expect(stream.status).toBe(200);
      const deadline = Date.now() + 10_000;
      while (stream.comments.filter((c) => c === 'heartbeat').length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(stream.comments[0]).toBe('connected');
      expect(stream.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(2);
      expect(stream.events).toEqual([]);
    } finally {
      stream.close();
    }
  });
});

describe('events stream: security', () => {
  it("another platform's token sees none of your events, live or replayed from the start", async () => {
    const live = await openStream(e.svc.url, theirs.token);
    try {
      const yours = await createTx(mine.token);
      const own = await createTx(theirs.token);
      const [first] = await live.waitFor(1);
      expect(first?.data.data.transaction.id).toBe(own.body.id);
      // Replaying the whole stream from its start: every platform-A event is skipped.
      const replay = await openStream(e.svc.url, theirs.token, { lastEventId: '0' });
      try {
        await replay.waitFor(1);
        await new Promise((r) => setTimeout(r, 500));
        const ids = replay.events.map((x) => x.data.data.transaction.id);
        expect(ids).toContain(own.body.id);
        expect(ids).not.toContain(yours.body.id);
      } finally {
        replay.close();
      }
      expect(live.events.map((x) => x.data.data.transaction.id)).not.toContain(yours.body.id);
    } finally {
      live.close();
    }
  });

  it('answers 401 without a token and with an API key', async () => {
    const none = await openStream(e.svc.url, undefined);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 to a token that may read neither transactions nor disputes', async () => {
    const compliance = await newPlatform(e, { clientScopes: ['read:compliance'] });
    const stream = await openStream(e.svc.url, compliance.token);
    expect(stream.status).toBe(403);
    expect(stream.body.error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('answers 403 when every requested type needs a scope the token lacks', async () => {
    const readsTransactions = await newPlatform(e, { clientScopes: ['read:transactions'] });
    const stream = await openStream(e.svc.url, readsTransactions.token, { types: 'dispute.created' });
    expect(stream.status).toBe(403);
    expect(stream.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required: ['read:disputes'] } });
  });
});

describe('events stream: bad input', () => {
  it('answers 400 INVALID_EVENT_TYPES naming an unknown type', async () => {
    const stream = await openStream(e.svc.url, mine.token, { types: 'transaction.created,payment.made' });
    expect(stream.status).toBe(400);
    expect(stream.body.error).toMatchObject({ code: 'INVALID_EVENT_TYPES', details: { invalidEventTypes: ['payment.made'] } });
  });

  it('answers 400 VALIDATION_ERROR to a Last-Event-ID that is not a stream position', async () => {
    const stream = await openStream(e.svc.url, mine.token, { lastEventId: 'evt_abc' });
    expect(stream.status).toBe(400);
    expect(stream.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('events stream: shutdown', () => {
  it('ends open streams when the server closes, so a shutdown does not wait for them', async () => {
    // The default heartbeat (15 s): nothing written to the stream would end it before the close.
    const own = await startPaymentsEnv();
    const platform = await newPlatform(own, { clientScopes: SCOPES });
    const stream = await openStream(own.svc.url, platform.token);
    try {
      expect(stream.status).toBe(200);
      // A stream that has delivered, as a listener's has (the smoke's had when it stopped the stack).
      const created = await call(own.svc.url, 'POST', '/api/v2/transactions', {
        headers: bearer(platform.token),
        body: { fromAddress: address(), toAddress: address(), amount: 12.5, orchestrationType: 'raw' },
      });
      expect(created.status).toBe(201);
      await stream.waitFor(1);
      // Stops the instance (the HTTP server first, as a SIGTERM does), then drops its stores.
      const closed = own.stop().then(() => 'closed' as const);
      const waited = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 5000).unref());
      expect(await Promise.race([closed, waited])).toBe('closed');
    } finally {
      stream.close();
    }
  });
});
