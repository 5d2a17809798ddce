import type { HttpApp } from './app.js';
import type { Closer } from './shutdown.js';

/**
 * A process assembled from its explicit dependencies and not yet running: `main.ts` runs it until
 * a signal, tests run it on a free port against their own database and NATS prefix.
 */
export interface ServiceHandle {
  app: HttpApp;
  /** Background work started once HTTP listens: outbox relay, consumers, pollers. */
  startWorkers: () => Promise<void>;
  /** In shutdown order: workers, then NATS, then the database. */
  closers: Closer[];
}

/** Listens on a free port and starts the workers; `stop` undoes both and closes the closers. */
export async function startForTest(handle: ServiceHandle): Promise<{ url: string; stop: () => Promise<void> }> {
  const url = await handle.app.listen({ host: '127.0.0.1', port: 0 });
  await handle.startWorkers();
  return {
    url,
    stop: async () => {
      await handle.app.close();
      for (const closer of handle.closers) await closer.close();
    },
  };
}
