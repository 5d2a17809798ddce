import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@holdfast/logging';
import { inject } from 'vitest';
import { type Bus, connectBus, prefixedName } from './bus.js';
import { deleteStreams, ensureStreams } from './streams.js';

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

/** A NATS connection under a prefix no other test file uses, with the streams created. */
export async function createTestBus(options: { logger?: Logger; name?: string } = {}): Promise<TestBus> {
  const url = inject('holdfastNatsUrl');
  const prefix = `t${randomBytes(5).toString('hex')}.`;
  const bus = await connectBus({
    url,
    name: options.name ?? 'test',
    prefix,
    logger: options.logger ?? createLogger({ service: 'test', level: process.env.HOLDFAST_TEST_LOGS || 'silent' }),
  });
  await ensureStreams(bus, { duplicateWindowMs: 10 * 60 * 1000, maxAgeMs: 60 * 60 * 1000, replicas: 1 });
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

export { startNatsServer } from './nats-server.js';
