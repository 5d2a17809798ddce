import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventSubject } from '@holdfast/contracts';
import { type Receiver, type RunningProcesses, startReceiver, startServiceProcesses, until } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainWorld, RECEIVER, SENDER, startChain } from '../support/chain.js';
import { bearer, call, key, newPlatform } from '../support/harness.js';

// Traces end to end, as an operator's collector receives them (docs/operations.md, "Tracing"): the
// real processes export OTLP/HTTP to a collector stand-in here, and the spans' parent links are
// checked across processes for a request (to the webhook attempt and the event stream), a chain
// lock (indexer -> CHAIN -> payments -> webhook) and a remote task (payments -> dispatcher).

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
}

/** An OTLP/HTTP collector that keeps every span it is sent (JSON encoding: hex ids). */
async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; close: () => Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: Omit<OtlpSpan, 'service'>[] }[];
          }[];
        };
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let collector: Awaited<ReturnType<typeof startCollector>>;
let world: ChainWorld;
let procs: RunningProcesses;
let receiver: Receiver;
let paymentsUrl: string;

beforeAll(async () => {
  [collector, world, receiver] = await Promise.all([startCollector(), startChain(), startReceiver()]);
  procs = await startServiceProcesses({
    services: ['payments-service', 'webhook-dispatcher', 'chain-indexer'],
    env: {
      ...world.env,
      INDEXER_POLL_INTERVAL: '100ms',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      // The SDK's batch processor reads its own variable: export within a fraction of a second.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  });
  paymentsUrl = procs.urls['payments-service']!;
}, 240_000);
afterAll(async () => {
  await procs?.stop();
  await Promise.all([world?.anvil.stop(), receiver?.close(), collector?.close()]);
});

const admin = () => procs.env.PAYMENTS_BOOTSTRAP_API_KEY!;
/** newPlatform's view of the stack: the payments process and its bootstrap key. */
const stack = () => ({ svc: { url: paymentsUrl, stop: async () => {} }, admin: admin() });
const span = (name: string | RegExp, service: string, where: (s: OtlpSpan) => boolean = () => true) =>
  until(`span ${String(name)} of ${service}`, () =>
    collector.spans.find((s) => s.service === service && (typeof name === 'string' ? s.name === name : name.test(s.name)) && where(s)),
  );
const childOf = (parent: OtlpSpan) => (s: OtlpSpan) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId;
/** A span somewhere below `root` in its trace (through any number of spans). */
const below = (root: OtlpSpan) => (s: OtlpSpan) => {
  if (s.traceId !== root.traceId) return false;
  for (let at: OtlpSpan | undefined = s; at; at = collector.spans.find((p) => p.spanId === at?.parentSpanId)) {
    if (at.parentSpanId === root.spanId) return true;
  }
  return false;
};

describe('one trace per payment, as the collector receives it', () => {
  it("request -> outbox -> JetStream -> dispatcher -> webhook attempt, and the event stream; then the chain lock -> payments -> webhook, and the release's settlement", async () => {
    const p = await newPlatform(stack(), {
      scopes: ['read:transactions', 'write:transactions', 'write:webhooks'],
      clientScopes: ['read:transactions', 'write:transactions', 'move:transactions'],
    });
    const subscribed = await call(paymentsUrl, 'POST', '/api/v1/webhooks', {
      headers: key(p.apiKey),
      body: { url: receiver.url('/traced'), eventTypes: ['transaction.created', 'transaction.escrowed'] },
    });
    expect(subscribed.status).toBe(201);
    // The platform's live event stream, open before the payment.
    const stream = new AbortController();
    const streamed = await fetch(`${paymentsUrl}/api/v2/events/stream`, { headers: bearer(p.token), signal: stream.signal });
    expect(streamed.status).toBe(200);
    const reading = (async () => {
      const reader = streamed.body!.getReader();
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
    })();

    const created = await call(paymentsUrl, 'POST', '/api/v1/transactions', {
      headers: key(p.apiKey),
      // A one-second hold, so that the release below is sent at once.
      body: {
        fromAddress: SENDER,
        toAddress: RECEIVER,
        amount: 5,
        orchestrationType: 'platform',
        template: { templateName: 'one-second hold', controls: [], holdPeriodSeconds: 1 },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;

    const request = await span('POST /api/v1/transactions', 'payments-service');
    const publish = await span(`${eventSubject('transaction.created')} publish`, 'payments-service', childOf(request));
    const intake = await span(`${eventSubject('transaction.created')} process`, 'webhook-dispatcher', childOf(publish));
    const attempt = await span('webhook transaction.created attempt', 'webhook-dispatcher', childOf(intake));
    expect(attempt.traceId).toBe(request.traceId);
    await span(`${eventSubject('transaction.created')} stream`, 'payments-service', childOf(publish));
    expect(receiver.received('/traced').some((r) => r.body.includes(id))).toBe(true);

    // The sender's wallet locks the escrow; the indexer reads it (a new trace: the chain is the cause).
    await world.createEscrow(id, 5_000_000n, { holdDeadline: BigInt(created.body.escrow.holdDeadline) });
    const chainPublish = await span(/^chain\..*escrow.*created publish$/, 'chain-indexer');
    const chainProcess = await span(/^chain\..*escrow.*created process$/, 'payments-service', childOf(chainPublish));
    const escrowedPublish = await span(`${eventSubject('transaction.escrowed')} publish`, 'payments-service', below(chainProcess));
    await span('webhook transaction.escrowed attempt', 'webhook-dispatcher', below(escrowedPublish));
    await span(`${eventSubject('transaction.escrowed')} stream`, 'payments-service', childOf(escrowedPublish));

    // The release attested: the settlement worker's attempt continues the attestation's trace (its
    // chain calls are children of it), even though it runs later, in the worker.
    const attested = await call(paymentsUrl, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: bearer(p.token) });
    expect(attested.status, JSON.stringify(attested.body)).toBe(200);
    const attest = await span('POST /api/v2/transactions/:id/release/attest', 'payments-service');
    await span('settlement release', 'payments-service', childOf(attest));
    stream.abort();
    await reading;
  }, 90_000);

  it("a remote task continues the trace of the request that queued it, into the other process's command", async () => {
    const p = await newPlatform(stack());
    const gone = await call(paymentsUrl, 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin()) });
    expect(gone.status).toBe(204);
    const request = await span('DELETE /api/v1/auth/platform/:id', 'payments-service');
    const task = await span('remote-task webhooks.deactivate-owner', 'payments-service', below(request));
    const send = await span(/^cmd\..* send$/, 'payments-service', childOf(task));
    await span(send.name.replace(/ send$/, ' serve'), 'webhook-dispatcher', childOf(send));
  });
});
