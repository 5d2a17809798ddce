import type { Logger } from '@holdfast/logging';
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/** A NATS connection with its JetStream handles and the subject prefix of this deployment. */
export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Prepended to every subject, stream and consumer name (NATS_SUBJECT_PREFIX). */
  prefix: string;
  logger: Logger;
  /** Drains subscriptions, flushes, closes. */
  close: () => Promise<void>;
  /** Round trip to the server, for /health/ready. */
  ping: () => Promise<void>;
}

export interface BusOptions {
  url: string;
  /** Connection name shown by the server (`payments-service`...). */
  name: string;
  prefix: string;
  logger: Logger;
}

export async function connectBus(options: BusOptions): Promise<Bus> {
  const nc = await connect({
    servers: options.url.split(','),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
  });
  const log = options.logger.child({ component: 'nats' });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error')
        log.warn({ status: status.type }, 'nats connection status');
    }
  })();
  const jsm = await jetstreamManager(nc);
  return {
    nc,
    js: jetstream(nc),
    jsm,
    prefix: options.prefix,
    logger: options.logger,
    close: async () => {
      if (!nc.isClosed()) await nc.drain();
    },
    ping: async () => {
      await nc.rtt();
    },
  };
}

/** The real subject / stream / consumer name of a contract name under this bus's prefix. */
export function prefixed(bus: Pick<Bus, 'prefix'>, name: string): string {
  return `${bus.prefix}${name}`;
}

/** Stream and consumer names may not contain dots. */
export function prefixedName(bus: Pick<Bus, 'prefix'>, name: string): string {
  return `${bus.prefix}${name}`.replaceAll('.', '_');
}
