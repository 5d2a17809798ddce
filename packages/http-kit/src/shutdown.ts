import type { Logger } from '@holdfast/logging';
import type { FastifyInstance } from 'fastify';

export interface Closer {
  name: string;
  close: () => Promise<void>;
}

export interface RunOptions {
  app: FastifyInstance;
  host: string;
  port: number;
  logger: Logger;
  /** Closed in order after the HTTP server has drained: consumers first, then NATS, then the database. */
  closers: Closer[];
  shutdownTimeoutMs: number;
  /** Started after `listen`, stopped before the closers (relays, consumers, pollers). */
  onListening?: () => Promise<void>;
}

/**
 * Listens, then waits for SIGINT/SIGTERM: stops taking requests (503 while closing), lets in-flight
 * ones finish, closes the closers, exits 0. A second signal or the timeout exits 1 at once.
 */
export async function runUntilSignalled(options: RunOptions): Promise<void> {
  const { app, logger } = options;
  let stopping = false;

  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: draining requests');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs: options.shutdownTimeoutMs }, 'shutdown timed out, exiting');
      process.exit(1);
    }, options.shutdownTimeoutMs);
    timer.unref();
    let failed = false;
    try {
      await app.close();
    } catch (error) {
      failed = true;
      logger.error({ err: error }, 'closing the HTTP server failed');
    }
    for (const closer of options.closers) {
      try {
        await closer.close();
        logger.info({ resource: closer.name }, 'closed');
      } catch (error) {
        failed = true;
        logger.error({ err: error, resource: closer.name }, 'close failed');
      }
    }
    logger.info('stopped');
    process.exit(failed ? 1 : 0);
  };

  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await app.listen({ host: options.host, port: options.port });
  await options.onListening?.();
}

/** Logs what escaped every handler and exits: a process in an unknown state must not serve money. */
export function exitOnUnhandled(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled rejection');
    process.exit(1);
  });
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    process.exit(1);
  });
}
