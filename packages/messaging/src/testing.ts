import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@holdfast/logging';
import { inject } from 'vitest';
import { type Bus, connectBus, prefixedName } from './bus.js';
import { startNatsServer } from './nats-server.js';
import { NATS_SERVICES, type NatsService, natsPasswordVariable, newNatsPassword, renderNatsAuthorization } from './permissions.js';
import { setUpNats } from './setup.js';
import { deleteStreams } from './streams.js';

declare module 'vitest' {
  export interface ProvidedContext {
    holdfastNatsUrl: string;
  }
}

export interface TestBus {
  bus: Bus;
  /** The NATS_SUBJECT_PREFIX of this test file; give it to every process the file starts. */
  prefix: string;
  url: string;
  dispose: () => Promise<void>;
}

const TEST_STREAM_SETTINGS = { duplicateWindowMs: 10 * 60 * 1000, maxAgeMs: 60 * 60 * 1000, replicas: 1 };

/** A NATS connection under a prefix no other test file uses, with the streams and durable consumers created (the NATS setup). */
export async function createTestBus(options: { logger?: Logger; name?: string } = {}): Promise<TestBus> {
  const url = inject('holdfastNatsUrl');
  const prefix = `t${randomBytes(5).toString('hex')}.`;
  const bus = await connectBus({
    url,
    name: options.name ?? 'test',
    prefix,
    logger: options.logger ?? createLogger({ service: 'test', level: process.env.HOLDFAST_TEST_LOGS || 'silent' }),
  });
  await setUpNats(bus, { streams: TEST_STREAM_SETTINGS });
  return {
    bus,
    prefix,
    url,
    dispose: async () => {
      await deleteStreams(bus);
      await bus.close();
    },
  };
}

/** Every message on a JetStream stream of this bus so far (`STREAMS.EVENTS.name`...), oldest first, as JSON. */
export async function streamMessages<T>(bus: Bus, streamName: string): Promise<T[]> {
  const stream = prefixedName(bus, streamName);
  const info = await bus.jsm.streams.info(stream);
  const messages: T[] = [];
  for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
    // A message the stream dropped (max age, a purge) leaves a gap in the sequence.
    const message = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (message) messages.push(message.json<T>());
  }
  return messages;
}

export { startNatsServer };

export interface PermissionedTestNats {
  /** The server (no credentials in it: each connection names its user). */
  url: string;
  /** The NATS_SUBJECT_PREFIX of the run. */
  prefix: string;
  /** A full-access connection under the prefix (the test's own reads and writes); the NATS setup has run as its user. */
  admin: Bus;
  /** NATS_USER and NATS_PASSWORD of one process, as infra/nats grants them. */
  credentialsOf: (service: NatsService) => { NATS_USER: string; NATS_PASSWORD: string };
  /** A connection as one process's user, under the prefix. */
  connectAs: (service: NatsService) => Promise<Bus>;
  stop: () => Promise<void>;
}

/**
 * A private nats-server with the authorization of infra/nats rendered for a fresh prefix (each
 * process its own user, no anonymous access) and a full-access user of the test's: for tests of
 * what one process's NATS user can do to another's. Never the shared server (it stays unaffected).
 */
export async function startPermissionedTestNats(options: { logger?: Logger } = {}): Promise<PermissionedTestNats> {
  const logger = options.logger ?? createLogger({ service: 'test', level: process.env.HOLDFAST_TEST_LOGS || 'silent' });
  const prefix = `t${randomBytes(5).toString('hex')}.`;
  const passwords = Object.fromEntries(NATS_SERVICES.map((s) => [s, newNatsPassword()])) as Record<NatsService, string>;
  const adminPassword = newNatsPassword();
  const server = await startNatsServer({
    config: renderNatsAuthorization(prefix, [`{ user: "holdfast-test", password: "${adminPassword}" }`]),
    env: Object.fromEntries(NATS_SERVICES.map((s) => [natsPasswordVariable(s), passwords[s]])),
  });
  const opened: Bus[] = [];
  const open = async (name: string, user: string, password: string) => {
    const bus = await connectBus({ url: server.url, name, prefix, logger, credentials: { user, password } });
    opened.push(bus);
    return bus;
  };
  try {
    const admin = await open('test', 'holdfast-test', adminPassword);
    // The NATS setup, as its own user (what ./scripts/start and infra/k8s run before the processes).
    const setup = await open('nats-setup', 'nats-setup', passwords['nats-setup']);
    await setUpNats(setup, { streams: TEST_STREAM_SETTINGS });
    return {
      url: server.url,
      prefix,
      admin,
      credentialsOf: (service) => ({ NATS_USER: service, NATS_PASSWORD: passwords[service] }),
      connectAs: (service) => open(service, service, passwords[service]),
      stop: async () => {
        for (const bus of opened) await bus.close().catch(() => undefined);
        await server.stop();
      },
    };
  } catch (error) {
    for (const bus of opened) await bus.close().catch(() => undefined);
    await server.stop();
    throw error;
  }
}
