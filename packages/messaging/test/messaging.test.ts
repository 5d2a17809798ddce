import { AppError, type DomainEvent, DomainEvent as DomainEventSchema, defineCommand, newEventId } from '@holdfast/contracts';
import { createLogger } from '@holdfast/logging';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureConsumer,
  ensureStreams,
  NonRetryableError,
  prefixed,
  publishEvent,
  RetryableError,
  sendCommand,
  serveCommand,
  startConsumer,
  streamName,
} from '../src/index.js';
import { createTestBus, type TestBus } from '../src/testing.js';

const logger = createLogger({ service: 'messaging-test', level: 'silent' });
let testBus: TestBus;

beforeAll(async () => {
  testBus = await createTestBus({ logger });
});
afterAll(async () => {
  await testBus.dispose();
});

function event(status: 'pending' | 'escrowed' = 'pending'): DomainEvent {
  return {
    id: newEventId(),
    type: 'transaction.created',
    createdAt: new Date().toISOString(),
    platformId: null,
    data: { transaction: { id: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11', status } },
  };
}

describe('streams', () => {
  it('creates the streams under the prefix and can run again at every start', async () => {
    await ensureStreams(testBus.bus);
    await ensureStreams(testBus.bus);
    const info = await testBus.bus.jsm.streams.info(streamName(testBus.bus, 'EVENTS'));
    expect(info.config.subjects).toEqual([`${testBus.prefix}events.>`]);
    expect(info.config.duplicate_window).toBeGreaterThan(0);
  });
});

describe('consumers', () => {
  it('acks handled messages, redelivers retryable failures and drops the ones that cannot succeed', async () => {
    const seen: { id: string; delivery: number }[] = [];
    const retryOnce = event();
    const poison = event();
    const fine = event();
    // A test's own durable consumer, made as the NATS setup makes DURABLE_CONSUMERS'.
    await ensureConsumer(testBus.bus, { name: 'test-outcomes', stream: 'EVENTS', filterSubject: 'events.>', deliverPolicy: 'all' });
    const consumer = await startConsumer({
      bus: testBus.bus,
      stream: 'EVENTS',
      durable: 'test-outcomes',
      filterSubject: 'events.>',
      schema: DomainEventSchema,
      logger,
      handler: async (payload, meta) => {
        seen.push({ id: payload.id, delivery: meta.deliveryCount });
        if (payload.id === retryOnce.id && meta.deliveryCount === 1) throw new RetryableError('database busy', 100);
        if (payload.id === poison.id) throw new NonRetryableError('unknown platform');
      },
    });
    for (const e of [retryOnce, poison, fine]) await publishEvent(testBus.bus, e);
    await expect.poll(() => seen.filter((s) => s.id === retryOnce.id).length, { timeout: 5000 }).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    await consumer.stop();
    expect(seen.filter((s) => s.id === poison.id)).toHaveLength(1);
    expect(seen.filter((s) => s.id === fine.id)).toHaveLength(1);
    expect(seen.find((s) => s.id === retryOnce.id && s.delivery === 2)).toBeDefined();
    const info = await testBus.bus.jsm.consumers.info(
      streamName(testBus.bus, 'EVENTS'),
      `${testBus.prefix.replace('.', '_')}test-outcomes`,
    );
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it('binds to a durable consumer the NATS setup made, and never makes one: a missing one fails naming the setup', async () => {
    const start = () =>
      startConsumer({
        bus: testBus.bus,
        stream: 'EVENTS',
        durable: 'test-never-set-up',
        filterSubject: 'events.>',
        schema: DomainEventSchema,
        logger,
        handler: async () => {},
      });
    await expect(start()).rejects.toThrow(/does not exist: run the NATS setup first/);
    await expect(
      testBus.bus.jsm.consumers.info(`${testBus.prefix.replace('.', '_')}EVENTS`, `${testBus.prefix.replace('.', '_')}test-never-set-up`),
    ).rejects.toThrow();
    // Set up with another filter than the process expects: refused too, not silently re-filtered.
    await ensureConsumer(testBus.bus, {
      name: 'test-never-set-up',
      stream: 'EVENTS',
      filterSubject: 'events.payments.>',
      deliverPolicy: 'all',
    });
    await expect(start()).rejects.toThrow(/filters .*events\.payments\.>, not .*events\.>: run the NATS setup first/);
  });

  it('terminates a message that breaks the contract without calling the handler', async () => {
    let calls = 0;
    await ensureConsumer(testBus.bus, {
      name: 'test-contract',
      stream: 'EVENTS',
      filterSubject: 'events.payments.transaction.created',
      deliverPolicy: 'new',
    });
    const consumer = await startConsumer({
      bus: testBus.bus,
      stream: 'EVENTS',
      durable: 'test-contract',
      filterSubject: 'events.payments.transaction.created',
      schema: DomainEventSchema,
      logger,
      handler: async () => {
        calls += 1;
      },
    });
    await testBus.bus.js.publish(`${testBus.prefix}events.payments.transaction.created`, JSON.stringify({ id: 'nope' }));
    await publishEvent(testBus.bus, event());
    await expect.poll(() => calls, { timeout: 5000 }).toBe(1);
    await consumer.stop();
  });
});

describe('commands', () => {
  const Echo = defineCommand(
    'cmd.test.echo',
    Type.Object({ text: Type.String({ minLength: 1 }) }),
    Type.Object({ upper: Type.String() }),
    'Upper-cases text; test only.',
  );

  it('answers with the typed reply, and carries AppErrors back with their code', async () => {
    const sub = serveCommand(testBus.bus, Echo, 'test-service', async ({ text }, { requestId }) => {
      if (text === 'missing') throw new AppError('NOT_FOUND', 'Platform not found');
      if (text === 'bug') throw new Error('null pointer in handler');
      return { upper: `${text.toUpperCase()}:${requestId ?? '-'}` };
    });
    try {
      expect(await sendCommand(testBus.bus, Echo, { text: 'hi' }, { requestId: 'req_9' })).toEqual({ upper: 'HI:req_9' });
      const notFound = await sendCommand(testBus.bus, Echo, { text: 'missing' }).catch((e: unknown) => e);
      expect(notFound).toBeInstanceOf(AppError);
      expect((notFound as AppError).toObject()).toEqual({ code: 'NOT_FOUND', message: 'Platform not found', statusCode: 404 });
      const bug = (await sendCommand(testBus.bus, Echo, { text: 'bug' }).catch((e: unknown) => e)) as AppError;
      expect(bug.toObject()).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error', statusCode: 500 });
    } finally {
      sub.unsubscribe();
    }
  });

  it('refuses a request that breaks the contract before sending it', async () => {
    await expect(sendCommand(testBus.bus, Echo, { text: '' })).rejects.toThrow(/does not match its contract/);
  });

  it('answers a request that reaches the server breaking the contract with the VALIDATION_ERROR envelope', async () => {
    const sub = serveCommand(testBus.bus, Echo, 'test-service', async ({ text }) => ({ upper: text.toUpperCase() }));
    try {
      // A caller that skips sendCommand's own check (another version of the contract, a hand-made request).
      const reply = await testBus.bus.nc.request(prefixed(testBus.bus, Echo.subject), JSON.stringify({ text: '' }), { timeout: 5000 });
      const { error } = reply.json<{ ok: false; error: unknown }>();
      expect(error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'cmd.test.echo request: payload does not match its contract: /text Expected string length greater or equal to 1',
        statusCode: 400,
        details: { errors: [{ field: 'command', reason: '/text Expected string length greater or equal to 1' }] },
      });
    } finally {
      sub.unsubscribe();
    }
  });

  it('answers UPSTREAM_UNAVAILABLE when no process serves the command', async () => {
    const error = (await sendCommand(testBus.bus, Echo, { text: 'hi' }, { timeoutMs: 500 }).catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.statusCode).toBe(503);
  });
});
