import type { Logger } from '@holdfast/logging';
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, nkeyAuthenticator, PermissionViolationError } from '@nats-io/transport-node';
import { inboxPrefixOf } from './permissions.js';

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
  /** This process's NATS user (NATS_USER, NATS_PASSWORD) or nkey seed (NATS_NKEY_SEED); none: anonymous. */
  credentials?: { user?: string | undefined; password?: string | undefined; nkeySeed?: string | undefined };
  /** TLS files (NATS_TLS_CA, NATS_TLS_CERT, NATS_TLS_KEY); any one given turns TLS on. */
  tls?: { caFile?: string | undefined; certFile?: string | undefined; keyFile?: string | undefined };
}

export async function connectBus(options: BusOptions): Promise<Bus> {
  const { credentials, tls } = options;
  const tlsFiles = Object.fromEntries(Object.entries(tls ?? {}).filter(([, v]) => v));
  const nc = await connect({
    servers: options.url.split(','),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    // Replies come back under an inbox of this process's own, the only one its NATS user may read.
    inboxPrefix: inboxPrefixOf(options.name),
    // No stack trace captured per request for the case it fails (nats.js builds two error objects
    // for every request, every JetStream publish included: about 4 % of payments' CPU in the
    // creation bench, in its outbox relay). A failed request still says what failed.
    noAsyncTraces: true,
    ...(credentials?.user ? { user: credentials.user, pass: credentials.password } : {}),
    ...(credentials?.nkeySeed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(credentials.nkeySeed)) } : {}),
    ...(Object.keys(tlsFiles).length > 0 ? { tls: tlsFiles } : {}),
  });
  const log = options.logger.child({ component: 'nats' });
  void (async () => {
    for await (const status of nc.status()) {
      // A subject this process's NATS user may not use is a deployment mistake (or infra/nats's): say so loudly.
      if (status.type === 'error' && status.error instanceof PermissionViolationError) {
        log.error({ err: status.error }, 'nats permission violation: this process used a subject its NATS user is not granted');
      } else if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        log.warn({ status: status.type }, 'nats connection status');
      }
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
