import { type DomainEvent, STREAMS } from '@holdfast/contracts';
import { appendToOutboxSql, createDatabase } from '@holdfast/db';
import { createTestDatabase, type TestDatabase } from '@holdfast/db/testing';
import { createLogger } from '@holdfast/logging';
import { publishEvent } from '@holdfast/messaging';
import { createTestBus, type TestBus } from '@holdfast/messaging/testing';
import { domainEvent } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOutboxRelay } from '../src/outbox-relay.js';

// The outbox of a made-up schema, created here so the test does not depend on any service.
const logger = createLogger({ service: 'relay-test', level: 'silent' });

let testDb: TestDatabase;
let testBus: TestBus;
let database: ReturnType<typeof createDatabase<Record<string, never>>>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  testBus = await createTestBus();
  database = createDatabase({ url: testDb.url, schemaName: 'relay_test', tables: {}, poolSize: 4, applicationName: 'relay-test' });
  await database.sql.unsafe(`
    create schema relay_test;
    create table relay_test.outbox (
      seq bigserial primary key, id text not null unique, type text not null, platform_id uuid,
      payload jsonb not null, trace_context jsonb, created_at timestamptz not null default now(), published_at timestamptz);`);
});

afterAll(async () => {
  await database.close();
  await testBus.dispose();
  await testDb.drop();
});

beforeEach(async () => {
  await database.sql`truncate relay_test.outbox`;
  await testBus.bus.jsm.streams.purge(`${testBus.prefix.replace('.', '_')}${STREAMS.EVENTS.name}`);
});

/** A relay of this schema's outbox that publishes to the test bus (`publish` replaces that). */
const relayOf = (options: Partial<Parameters<typeof createOutboxRelay>[0]> = {}) =>
  createOutboxRelay({
    sql: database.sql,
    schemaName: 'relay_test',
    publish: (e) => publishEvent(testBus.bus, e).then(() => {}),
    logger,
    ...options,
  });

const createdEvent = (transactionId: string): DomainEvent =>
  domainEvent('transaction.created', {}, { transaction: { id: transactionId, status: 'pending' } });

async function commitEvents(events: DomainEvent[]): Promise<void> {
  await database.sql.begin(async (tx) => appendToOutboxSql(tx, 'relay_test', events));
}

async function streamMessages(): Promise<DomainEvent[]> {
  const stream = `${testBus.prefix.replace('.', '_')}${STREAMS.EVENTS.name}`;
  const info = await testBus.bus.jsm.streams.info(stream);
  const events: DomainEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const message = await testBus.bus.jsm.streams.getMessage(stream, { seq });
    if (message) events.push(message.json<DomainEvent>());
  }
  return events;
}

describe('outbox relay', () => {
  it('publishes at once when woken in-process after a commit, without a NOTIFY or a poll', async () => {
    const relay = relayOf({ pollIntervalMs: 60 * 60 * 1000 });
    await relay.start();
    // A first event by the usual path (its NOTIFY): the relay is running and then asleep for an hour.
    const first = createdEvent('0c4f3a52-81b8-4c1e-9d0b-9e4c1f6a7d21');
    await commitEvents([first]);
    await expect.poll(() => relay.backlog(), { timeout: 5000 }).toBe(0);
    // A row committed without a NOTIFY: only the in-process wake-up sends it.
    const second = createdEvent('5e0b7c1d-2f4a-4b8e-a1c3-7d9e0f1a2b34');
    await database.sql`insert into relay_test.outbox (id, type, payload) values (${second.id}, ${second.type}, ${JSON.stringify(second)}::jsonb)`;
    relay.wake();
    await expect.poll(() => relay.backlog(), { timeout: 5000 }).toBe(0);
    await relay.stop();
    expect((await streamMessages()).map((e) => e.id)).toEqual([first.id, second.id]);
  });

  it('woken while another instance holds the pass, it publishes what that pass missed once it ends, not at the next poll', async () => {
    const relay = relayOf({ pollIntervalMs: 60 * 60 * 1000 });
    // Another instance's pass holds the lock: it has read the first event and waits on its publish.
    // This relay starts only then: its start-up pass, racing the other's, could take the lock first
    // (the other then finds nothing to do and the test sees no lock held).
    let releaseOther!: () => void;
    const otherPublishing = new Promise<void>((resolve) => {
      releaseOther = resolve;
    });
    const other = relayOf({ publish: async (e) => otherPublishing.then(() => publishEvent(testBus.bus, e)).then(() => {}) });
    const first = createdEvent('7d2e4f60-1a3b-4c5d-8e9f-0a1b2c3d4e5f');
    const second = createdEvent('8e3f5a71-2b4c-4d6e-9fa0-1b2c3d4e5f60');
    const insert = (e: DomainEvent) =>
      database.sql`insert into relay_test.outbox (id, type, payload) values (${e.id}, ${e.type}, ${JSON.stringify(e)}::jsonb)`;
    await insert(first);
    const otherPass = other.runOnce();
    const heldLocks = () =>
      database.sql`select 1 from pg_locks where locktype = 'advisory'
        and database = (select oid from pg_database where datname = current_database())`.then((r) => r.length);
    try {
      await expect.poll(heldLocks).toBe(1);
      await relay.start();
      // Committed after the other pass read, without a NOTIFY: this instance's wake-up is all it gets.
      await insert(second);
      relay.wake();
      await new Promise((resolve) => setTimeout(resolve, 300)); // its pass finds the lock taken
      releaseOther();
      expect(await otherPass).toBe(1);
      await expect.poll(() => relay.backlog(), { timeout: 5000 }).toBe(0);
    } finally {
      // A relay left running would publish the next tests' rows before their own relays.
      releaseOther();
      await otherPass.catch(() => 0);
      await relay.stop();
    }
    expect((await streamMessages()).map((e) => e.id)).toEqual([first.id, second.id]);
  });

  it('publishes a committed event that waited while the relay was stopped, exactly once', async () => {
    const event = createdEvent('2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11');
    await commitEvents([event]);
    // The relay was not running at commit time: the row waits.
    const relay = relayOf();
    expect(await relay.backlog()).toBe(1);
    await relay.start();
    await expect.poll(() => relay.backlog(), { timeout: 5000 }).toBe(0);
    await relay.stop();
    expect((await streamMessages()).map((e) => e.id)).toEqual([event.id]);
  });

  it('never publishes what did not commit', async () => {
    const event = createdEvent('2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e12');
    await expect(
      database.sql.begin(async (tx) => {
        await appendToOutboxSql(tx, 'relay_test', [event]);
        throw new Error('business rule failed after the insert');
      }),
    ).rejects.toThrow('business rule failed');
    const relay = relayOf();
    expect(await relay.runOnce()).toBe(0);
    expect(await streamMessages()).toEqual([]);
  });

  it('re-publishes after a crash between the broker ack and the row update, and the stream keeps one copy', async () => {
    const events = [createdEvent('2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e13'), createdEvent('2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e14')];
    await commitEvents(events);
    // First relay: the broker stores each event, then the process "dies" before marking the rows.
    const crashing = relayOf({
      publish: async (e) => {
        await publishEvent(testBus.bus, e);
        throw new Error('killed after publish');
      },
    });
    expect(await crashing.runOnce()).toBe(0);
    expect(await crashing.backlog()).toBe(2);
    // Restarted relay publishes the same rows again; JetStream drops the copies by Nats-Msg-Id.
    const duplicates: boolean[] = [];
    const restarted = relayOf({ publish: async (e) => void duplicates.push((await publishEvent(testBus.bus, e)).duplicate) });
    expect(await restarted.runOnce()).toBe(2);
    expect(duplicates).toEqual([true, true]);
    expect(await restarted.backlog()).toBe(0);
    expect((await streamMessages()).map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('marks only the rows the broker acknowledged in a pass; the next pass publishes the rest', async () => {
    const events = Array.from({ length: 5 }, (_, i) => createdEvent(`2b1d5e9e-7c1f-4d3a-9a63-1${String(i).padStart(11, '0')}`));
    for (const event of events) await commitEvents([event]);
    const refused = new Set([events[1]!.id, events[3]!.id]);
    const flaky = relayOf({
      publish: async (e) => {
        if (refused.has(e.id)) throw new Error('broker unavailable');
        await publishEvent(testBus.bus, e);
      },
    });
    expect(await flaky.runOnce()).toBe(3);
    const unpublished = await database.sql<{ id: string }[]>`select id from relay_test.outbox where published_at is null order by seq`;
    expect(unpublished.map((r) => r.id)).toEqual([events[1]!.id, events[3]!.id]);
    expect(await relayOf().runOnce()).toBe(2);
    expect(await flaky.backlog()).toBe(0);
    expect((await streamMessages()).map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('keeps commit order and lets only one of two relays publish a pass', async () => {
    const events = Array.from({ length: 50 }, (_, i) => createdEvent(`2b1d5e9e-7c1f-4d3a-9a63-${String(i).padStart(12, '0')}`));
    for (const event of events) await commitEvents([event]);
    const publish = (e: DomainEvent) => publishEvent(testBus.bus, e).then(() => {});
    const a = createOutboxRelay({ sql: database.sql, schemaName: 'relay_test', publish, logger, batchSize: 10 });
    const b = createOutboxRelay({ sql: database.sql, schemaName: 'relay_test', publish, logger, batchSize: 10 });
    await Promise.all([a.start(), b.start()]);
    await expect.poll(() => a.backlog(), { timeout: 10_000 }).toBe(0);
    await Promise.all([a.stop(), b.stop()]);
    expect((await streamMessages()).map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('refuses an event that breaks its contract before it reaches the stream', async () => {
    const bad = {
      ...createdEvent('2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e15'),
      data: { transaction: { id: 'not-a-uuid', status: 'pending' } },
    } as DomainEvent;
    await expect(publishEvent(testBus.bus, bad)).rejects.toThrow(/does not match its contract/);
    expect(await streamMessages()).toEqual([]);
  });
});
