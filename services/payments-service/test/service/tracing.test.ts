import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@holdfast/logging';
import { inMemorySpanExporter, type ReadableSpan, startTracing, type Tracing } from '@holdfast/runtime';
import { fileFixture, type Receiver, startReceiver, until } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatcherFor } from '../support/dispatcher.js';
import { call, key, type Running, startPaymentsEnv } from '../support/harness.js';

// One payment followed across processes (docs/operations.md, "Tracing"): real payments-service and
// webhook-dispatcher on real PostgreSQL and NATS, spans read from an in-memory exporter. The HTTP
// request, the outbox row's publish, the dispatcher's intake and the webhook attempt are one trace.

const exporter = await inMemorySpanExporter();
const logLines: Record<string, unknown>[] = [];
// payments logs into memory, to check that its lines carry the trace id.
const lines = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(JSON.parse(String(chunk)));
    done();
  },
});
let tracing: Tracing | undefined;
let dispatcher: Running;
let receiver: Receiver;

// Tracing starts first and shuts down last: payments and the dispatcher are made under it.
beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'holdfast-test', exporter });
});
afterAll(async () => tracing?.shutdown());

const e = fileFixture(() =>
  startPaymentsEnv({ LOG_LEVEL: 'info' }, undefined, createLogger({ service: 'payments-service', level: 'info', destination: lines })),
);

beforeAll(async () => {
  [dispatcher, receiver] = await Promise.all([startDispatcherFor(e.db, e.nats), startReceiver()]);
});

afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
});

const spanId = (span: ReadableSpan | undefined) => span?.spanContext().spanId;

describe('one payment, one trace', () => {
  it('follows a transaction from its HTTP request through the outbox, NATS and the dispatcher to the webhook attempt', async () => {
    const subscription = await call(e.svc.url, 'POST', '/api/v1/webhooks', {
      headers: key(e.admin),
      body: { url: receiver.url('/hooks'), eventTypes: ['transaction.created'] },
    });
    expect(subscription.status).toBe(201);

    // A client's traceparent is linked, not adopted: the trace starts here.
    const clientTrace = '0af7651916cd43dd8448eb211c80319c';
    const created = await call(e.svc.url, 'POST', '/api/v1/transactions', {
      headers: { ...key(e.admin), traceparent: `00-${clientTrace}-b7ad6b7169203331-01` },
      body: {
        fromAddress: `0x${randomUUID().replaceAll('-', '')}00000000`,
        toAddress: `0x${randomUUID().replaceAll('-', '')}11111111`,
        amount: 10,
      },
    });
    expect(created.status).toBe(201);
    const transactionId = created.body.id as string;

    // The webhook arrives, then its attempt's span ends (after the attempt is stored).
    await until('the webhook', () => receiver.received('/hooks').find((r) => r.body.includes(transactionId)));
    const attempt = await until('the attempt span', () =>
      exporter.getFinishedSpans().find((s) => s.name === 'webhook transaction.created attempt'),
    );

    const request = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'POST /api/v1/transactions' && s.attributes['http.response.status_code'] === 201);
    expect(request).toBeDefined();
    const traceId = request?.spanContext().traceId;
    expect(traceId).not.toBe(clientTrace);
    expect(request?.parentSpanContext).toBeUndefined();
    expect(request?.links.map((l) => l.context.traceId)).toEqual([clientTrace]);

    const inTrace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const publish = inTrace.find((s) => s.name === 'events.payments.transaction.created publish');
    const intake = inTrace.find((s) => s.name === 'events.payments.transaction.created process');
    // request -> (outbox row) -> publish -> (NATS headers) -> intake -> (received event row) -> attempt
    expect(publish?.parentSpanContext?.spanId).toBe(spanId(request));
    expect(intake?.parentSpanContext?.spanId).toBe(spanId(publish));
    expect(attempt.spanContext().traceId).toBe(traceId);
    expect(attempt.parentSpanContext?.spanId).toBe(spanId(intake));
    expect(attempt.attributes).toMatchObject({ 'http.response.status_code': 200, 'holdfast.delivery.attempt': 1 });
    expect(publish?.attributes['messaging.message.id']).toBe(intake?.attributes['messaging.message.id']);

    // What carried it: the outbox row's stored context names the request's span.
    const [row] = await e.sql<{ trace_context: { traceparent: string } }[]>`
      select trace_context from payments.outbox where type = 'transaction.created' and payload->'data'->'transaction'->>'id' = ${transactionId}`;
    expect(row?.trace_context.traceparent).toBe(`00-${traceId}-${spanId(request)}-01`);

    // The request's log line carries its trace id.
    const line = logLines.find((l) => l.msg === 'request completed' && l.route === '/api/v1/transactions' && l.statusCode === 201);
    expect(line).toMatchObject({ traceId, spanId: spanId(request) });
  });

  it('traces no health probe', async () => {
    exporter.reset();
    expect((await call(e.svc.url, 'GET', '/health')).status).toBe(200);
    expect(exporter.getFinishedSpans().filter((s) => s.kind === 1 /* SERVER */)).toEqual([]);
  });
});
