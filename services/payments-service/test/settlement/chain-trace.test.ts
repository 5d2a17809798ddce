import { chainMessageId, uuidv7 } from '@holdfast/contracts';
import { inMemorySpanExporter, startTracing, type Tracing } from '@holdfast/runtime';
import { ANVIL_ACCOUNTS } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChainPaymentsEnv,
  type ChainWorld,
  insertTransaction,
  publishChain,
  startChainPaymentsEnv,
  waitFor,
} from '../support/chain.js';
import type { TestBus, TestSql } from '../support/harness.js';

// The chain side of a payment's trace (docs/operations.md, "Tracing"): a CHAIN message published as
// the indexer publishes it starts a trace; payments' consumer continues it, and the state move's
// outbox row carries it on to the event that announces the move.

const exporter = await inMemorySpanExporter();
let tracing: Tracing | undefined;
let e: ChainPaymentsEnv;
let nats: TestBus;
let sql: TestSql;
let world: ChainWorld;
const platformId = uuidv7();

beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'holdfast-test', exporter });
  e = await startChainPaymentsEnv();
  ({ nats, sql, world } = e);
  await sql`insert into platforms (id, name, scopes) values (${platformId}, 'chain trace', ${['read:transactions']})`;
}, 60_000);

afterAll(async () => {
  await e?.stop();
  await tracing?.shutdown();
});

describe('a chain event to the state move', () => {
  it('continues the trace of the CHAIN message through the escrowed move to the published transaction.escrowed', async () => {
    const id = await insertTransaction(sql, { platformId, from: ANVIL_ACCOUNTS[1].address, to: ANVIL_ACCOUNTS[2].address });
    const [created] = await world.indexed(await world.createEscrow(id, 25_500_000n));
    if (!created) throw new Error('no escrow.created event');
    await publishChain(nats.bus, [created]);
    await waitFor(
      async () => (await sql`select 1 from applied_chain_messages where message_id = ${chainMessageId(created)}`)[0],
      'the move',
    );

    const subject = `chain.${created.network}.escrow.created`;
    const publish = exporter.getFinishedSpans().find((s) => s.name === `${subject} publish`);
    const traceId = publish?.spanContext().traceId;
    const consume = await waitFor(
      async () => exporter.getFinishedSpans().find((s) => s.name === `${subject} process` && s.spanContext().traceId === traceId),
      'the consumer span',
    );
    expect(consume.parentSpanContext?.spanId).toBe(publish?.spanContext().spanId);

    // The move's outbox row names the consumer's span, and the relay's publish of it continues there.
    const [row] = await sql<{ trace_context: { traceparent: string } }[]>`
      select trace_context from outbox where type = 'transaction.escrowed' and payload->'data'->'transaction'->>'id' = ${id}`;
    expect(row?.trace_context.traceparent).toBe(`00-${traceId}-${consume.spanContext().spanId}-01`);
    const announced = await waitFor(
      async () =>
        exporter
          .getFinishedSpans()
          .find((s) => s.name === 'events.payments.transaction.escrowed publish' && s.spanContext().traceId === traceId),
      'the transaction.escrowed publish span',
    );
    expect(announced.parentSpanContext?.spanId).toBe(consume.spanContext().spanId);
  });
});
