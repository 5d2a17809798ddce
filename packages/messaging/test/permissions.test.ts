import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSUMERS, defineCommand, eventSubject, PAYMENTS_EVENTS, type StreamName } from '@holdfast/contracts';
import { createLogger } from '@holdfast/logging';
import { AckPolicy } from '@nats-io/jetstream';
import { connect, nkeys } from '@nats-io/transport-node';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Bus,
  connectBus,
  followStream,
  NATS_SERVICES,
  type NatsService,
  natsAuthorizationFile,
  natsPasswordVariable,
  newNatsPassword,
  renderNatsAuthorization,
  sendCommand,
  serveCommand,
  setUpNats,
  startConsumer,
  streamName,
} from '../src/index.js';
import { startNatsServer } from '../src/testing.js';

// NATS as a trust boundary: a private nats-server runs with the authorization rendered from the
// grants (as infra/nats does); each process's user can do its own job and nothing of another's.

const logger = createLogger({ service: 'permissions-test', level: 'silent' });
const passwords = Object.fromEntries(NATS_SERVICES.map((s) => [s, newNatsPassword()])) as Record<NatsService, string>;
let server: Awaited<ReturnType<typeof startNatsServer>>;
const buses: Partial<Record<NatsService, Bus>> = {};
const Payload = Type.Object({ n: Type.Number() });
const probeCommand = defineCommand('cmd.payments.permissions-probe', Payload, Payload, 'echo (test only)');

const as = (service: NatsService) => buses[service] as Bus;

beforeAll(async () => {
  server = await startNatsServer({
    config: renderNatsAuthorization(''),
    env: Object.fromEntries(NATS_SERVICES.map((s) => [natsPasswordVariable(s), passwords[s]])),
  });
  for (const service of NATS_SERVICES) {
    buses[service] = await connectBus({
      url: server.url,
      name: service,
      prefix: '',
      logger,
      credentials: { user: service, password: passwords[service] },
    });
  }
  // The NATS setup, as its own user: the streams and every durable consumer (DURABLE_CONSUMERS).
  await setUpNats(as('nats-setup'));
}, 30_000);

afterAll(async () => {
  for (const bus of Object.values(buses)) await bus?.close();
  await server?.stop();
});

/** A durable consumer as `service`'s user: the `n` of each payload it handled, in order. */
async function consumeAs(service: NatsService, stream: StreamName, durable: string, filterSubject: string) {
  const seen: number[] = [];
  const consumer = await startConsumer({
    bus: as(service),
    stream,
    durable,
    filterSubject,
    schema: Payload,
    logger,
    handler: async (payload) => {
      seen.push(payload.n);
    },
  });
  return { seen, stop: () => consumer.stop() };
}

const chainMessages = async () => (await as('nats-setup').jsm.streams.info(streamName(as('nats-setup'), 'CHAIN'))).state.messages;

describe('NATS users and permissions (infra/nats)', () => {
  it('refuses anonymous connections and wrong passwords', async () => {
    await expect(connect({ servers: server.url, maxReconnectAttempts: 0 })).rejects.toThrow(/Authorization Violation/i);
    await expect(connect({ servers: server.url, user: 'payments-service', pass: 'guessed', maxReconnectAttempts: 0 })).rejects.toThrow(
      /Authorization Violation/i,
    );
  });

  it('lets the indexer publish CHAIN events and payments consume them; the dispatcher and workspace cannot publish one', async () => {
    const before = await chainMessages();
    const ack = await as('chain-indexer').js.publish('chain.base-sepolia.escrow.created', JSON.stringify({ n: 1 }));
    expect(ack.seq).toBeGreaterThan(0);
    for (const intruder of ['webhook-dispatcher', 'workspace-service'] as const) {
      await expect(
        as(intruder).js.publish('chain.base-sepolia.escrow.released', JSON.stringify({ n: 666 }), { timeout: 1500 }),
      ).rejects.toThrow();
    }
    expect(await chainMessages()).toBe(before + 1);
    const consumer = await consumeAs('payments-service', 'CHAIN', CONSUMERS.paymentsChain, 'chain.>');
    await expect.poll(() => consumer.seen, { timeout: 5000 }).toEqual([1]);
    await consumer.stop();
  });

  it("serves payments' commands to workspace only: the dispatcher's user cannot send a workspace command to payments", async () => {
    const handled: number[] = [];
    const sub = serveCommand(as('payments-service'), probeCommand, 'payments-service', async (request) => {
      handled.push(request.n);
      return request;
    });
    await as('payments-service').nc.flush();
    expect(await sendCommand(as('workspace-service'), probeCommand, { n: 7 })).toEqual({ n: 7 });
    await expect(sendCommand(as('webhook-dispatcher'), probeCommand, { n: 666 }, { timeoutMs: 1500 })).rejects.toThrow();
    await expect(sendCommand(as('chain-indexer'), probeCommand, { n: 667 }, { timeoutMs: 1500 })).rejects.toThrow();
    expect(handled).toEqual([7]);
    sub.unsubscribe();
  });

  it('lets only payments publish domain events (its own subjects), which the dispatcher consumes and payments follows; workspace and the indexer cannot publish one', async () => {
    const abort = new AbortController();
    const followed = await followStream(as('payments-service'), { stream: 'EVENTS', filterSubject: PAYMENTS_EVENTS, signal: abort.signal });
    const consumer = await consumeAs('webhook-dispatcher', 'EVENTS', CONSUMERS.dispatcherEvents, PAYMENTS_EVENTS);
    await as('payments-service').js.publish(eventSubject('transaction.created'), JSON.stringify({ n: 1 }));
    // Issue 28 item 7: workspace-service could publish any `events.>`; a forged event was delivered as payments'.
    for (const intruder of ['workspace-service', 'chain-indexer', 'webhook-dispatcher'] as const) {
      for (const subject of [eventSubject('transaction.completed'), 'events.transaction.completed', 'events.workspace.created']) {
        await expect(as(intruder).js.publish(subject, JSON.stringify({ n: 666 }), { timeout: 1500 })).rejects.toThrow();
      }
    }
    await as('payments-service').js.publish(eventSubject('transaction.completed'), JSON.stringify({ n: 2 }));
    await expect.poll(() => consumer.seen, { timeout: 5000 }).toEqual([1, 2]);
    const first = await followed[Symbol.asyncIterator]().next();
    expect(first.value?.payload).toEqual({ n: 1 });
    abort.abort();
    await consumer.stop();
  });

  it("leaves stream and consumer administration to the NATS setup's user: no process may update a stream or touch another's consumer", async () => {
    const events = streamName(as('nats-setup'), 'EVENTS');
    const chain = streamName(as('nats-setup'), 'CHAIN');
    const chainBefore = await as('nats-setup').jsm.streams.info(chain);
    const dispatcherDurable = CONSUMERS.dispatcherEvents;
    for (const service of ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'] as const) {
      const jsm = as(service).jsm;
      // Issue 28 item 7: the dispatcher's user could update the CHAIN stream...
      await expect(jsm.streams.update(chain, { max_age: 1_000_000_000 }), service).rejects.toThrow(/Permissions Violation/);
      await expect(jsm.streams.add({ name: `${service}-own`, subjects: ['own.>'] }), service).rejects.toThrow(/Permissions Violation/);
      await expect(jsm.streams.purge(events), service).rejects.toThrow(/Permissions Violation/);
      await expect(jsm.streams.delete(chain), service).rejects.toThrow(/Permissions Violation/);
      // ... and delete other services' durable consumers; nor may a process make or change its own.
      for (const durable of Object.values(CONSUMERS)) {
        const stream = durable === CONSUMERS.paymentsChain ? chain : events;
        await expect(jsm.consumers.delete(stream, durable), `${service} deletes ${durable}`).rejects.toThrow(/Permissions Violation/);
        await expect(jsm.consumers.update(stream, durable, { max_deliver: 1 }), `${service} updates ${durable}`).rejects.toThrow(
          /Permissions Violation/,
        );
      }
    }
    // Payments reads EVENTS with ephemeral consumers of its own (the platforms' event stream), under
    // names it picks: the dispatcher's durable is not one of them (neither updated, read nor deleted).
    await expect(
      as('payments-service').jsm.consumers.add(events, {
        name: dispatcherDurable,
        filter_subject: PAYMENTS_EVENTS,
        ack_policy: AckPolicy.Explicit,
      }),
    ).rejects.toThrow(/Permissions Violation/);
    const pull = as('payments-service')
      .js.consumers.get(events, dispatcherDurable)
      .then((c) => c.next({ expires: 1000 }));
    await expect(pull).rejects.toThrow();
    expect((await as('nats-setup').jsm.streams.info(chain)).config).toEqual(chainBefore.config);
    expect((await as('nats-setup').jsm.consumers.info(events, dispatcherDurable)).config).toMatchObject({
      filter_subject: PAYMENTS_EVENTS,
      max_deliver: -1,
    });
    // The setup may run again (each release's): it updates, it deletes nothing.
    await setUpNats(as('nats-setup'));
  });

  it('connects a process with an nkey seed (NATS_NKEY_SEED) instead of a password', async () => {
    const user = nkeys.createUser();
    const nkeyServer = await startNatsServer({ config: `authorization { users: [ { nkey: "${user.getPublicKey()}" } ] }` });
    try {
      const seed = new TextDecoder().decode(user.getSeed());
      const bus = await connectBus({ url: nkeyServer.url, name: 'chain-indexer', prefix: '', logger, credentials: { nkeySeed: seed } });
      await bus.ping();
      await bus.close();
      await expect(connect({ servers: nkeyServer.url, maxReconnectAttempts: 0 })).rejects.toThrow(/Authorization Violation/i);
    } finally {
      await nkeyServer.stop();
    }
  });

  it('speaks TLS with the CA, client certificate and key given (NATS_TLS_*); a client without a certificate is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'holdfast-tls-'));
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=holdfast-test-ca');
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    for (const [name, extra] of [
      ['server', ['-extfile', 'san.ext']],
      ['client', []],
    ] as const) {
      openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
      openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        '1',
        ...extra,
      );
    }
    const file = (name: string) => JSON.stringify(join(dir, name));
    const tlsServer = await startNatsServer({
      config: `tls { cert_file: ${file('server.pem')}, key_file: ${file('server.key')}, ca_file: ${file('ca.pem')}, verify: true }`,
    });
    try {
      const tls = { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'client.pem'), keyFile: join(dir, 'client.key') };
      const bus = await connectBus({ url: tlsServer.url, name: 'chain-indexer', prefix: '', logger, tls });
      await bus.ping();
      await bus.close();
      await expect(
        connect({ servers: tlsServer.url, tls: { caFile: tls.caFile }, maxReconnectAttempts: 0, timeout: 3000 }),
      ).rejects.toThrow();
    } finally {
      await tlsServer.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps infra/nats/authorization.conf equal to the grants (regenerate: node scripts/nats-config.ts)', () => {
    const committed = readFileSync(new URL('../../../infra/nats/authorization.conf', import.meta.url), 'utf8');
    expect(committed).toBe(natsAuthorizationFile());
  });
});
