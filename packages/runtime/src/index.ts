import { fileURLToPath } from 'node:url';
import { apiDocsOf, listenHostOf, parseHeaderList, parsePostgresUrl } from '@holdfast/config';
import { CHAIN_IDS, DURABLE_CONSUMERS, STREAMS } from '@holdfast/contracts';
import {
  createDatabase,
  type Database,
  pingOnce,
  type ReencryptResult,
  reencryptColumns,
  runMigrations,
  type SealedColumn,
} from '@holdfast/db';
import {
  type Closer,
  chainRpcCheck,
  createHttpApp,
  type DeprecatedSurface,
  exitOnUnhandled,
  type HttpApp,
  type OpenApiInfo,
  type RateLimitSettings,
  type RateLimitTier,
  type ReadinessCheck,
  runUntilSignalled,
  type ServiceHandle,
  waitForDependencies,
} from '@holdfast/http-kit';
import { createLogger, type Logger } from '@holdfast/logging';
import { type Bus, type BusOptions, connectBus, DEFAULT_STREAM_SETTINGS, prefixedName, publishEvent, setUpNats } from '@holdfast/messaging';
import { createSecretBox, keyringFromConfig } from '@holdfast/secrets';
import { createOutboxRelay, type OutboxRelay } from './outbox-relay.js';
import { createRateLimitCounter } from './rate-limits.js';
import { collectStartupGarbage } from './startup-heap.js';
import { startTracing } from './tracing.js';

export * from './batcher.js';
export * from './leased-job.js';
export * from './outbox-relay.js';
export * from './rate-limits.js';
export * from './remote-tasks.js';
export * from './startup-heap.js';
export * from './tracing.js';
export * from './worker.js';

/** The configuration every process has (CommonEnv resolved). */
export interface BaseConfig {
  APP_ENV: 'local' | 'staging' | 'production';
  DATABASE_URL: string;
  DATABASE_POOL_SIZE: number;
  NATS_URL: string;
  NATS_SUBJECT_PREFIX: string;
  /** Copies of each JetStream stream (3 in a three-node cluster); 1 by default. */
  NATS_STREAM_REPLICAS?: number;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_NKEY_SEED?: string | undefined;
  NATS_TLS_CA?: string | undefined;
  NATS_TLS_CERT?: string | undefined;
  NATS_TLS_KEY?: string | undefined;
  HOST?: string | undefined;
  /** `/metrics` on this port only (internal); unset: on the API's port. */
  METRICS_PORT?: number | undefined;
  /** `/docs` and `/openapi.json`; unset: everywhere but production. */
  API_DOCS?: boolean | undefined;
  LOG_LEVEL: string;
  shutdownTimeoutMs: number;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_TRACES_SAMPLER_ARG: number;
}

/** What connecting to NATS takes (the NATS setup reads only this). */
export type NatsConfig = Pick<
  BaseConfig,
  | 'NATS_URL'
  | 'NATS_SUBJECT_PREFIX'
  | 'NATS_STREAM_REPLICAS'
  | 'NATS_USER'
  | 'NATS_PASSWORD'
  | 'NATS_NKEY_SEED'
  | 'NATS_TLS_CA'
  | 'NATS_TLS_CERT'
  | 'NATS_TLS_KEY'
  | 'LOG_LEVEL'
>;

export interface FoundationOptions<TSchema extends Record<string, unknown>> {
  serviceName: string;
  schemaName: string;
  tables: TSchema;
  config: BaseConfig;
  logger: Logger;
  http: {
    apiVersion: (url: string) => string;
    openapi?: OpenApiInfo;
    deprecations?: DeprecatedSurface[];
    bodyLimit?: number;
    /** Per-tier limits, counted in memory and shared by the instances through `redisUrl` (ADR 25). */
    rateLimitsPerMinute?: Record<RateLimitTier, number>;
    /** REDIS_URL: where the instances add up their rate-limit counts; unset, each instance counts alone. */
    redisUrl?: string | undefined;
    credentialOf?: RateLimitSettings['credentialOf'];
    /** TRUST_PROXY: who may set the client address (X-Forwarded-For). */
    trustProxy?: false | number | string[];
  };
  /** Networks whose RPC this process uses: each becomes a readiness check. */
  chainRpcUrls?: Record<string, string>;
  /** The process's own readiness checks, after those of its dependencies. */
  readiness?: ReadinessCheck[];
}

/** What every process stands on: its database (own schema), NATS with the streams, the HTTP app. */
export interface Foundation<TSchema extends Record<string, unknown>> {
  database: Database<TSchema>;
  bus: Bus;
  app: HttpApp;
  /** Closes NATS then the database; put the process's own workers before these. */
  baseClosers: Closer[];
}

export async function createFoundation<TSchema extends Record<string, unknown>>(
  options: FoundationOptions<TSchema>,
): Promise<Foundation<TSchema>> {
  const { config, logger } = options;
  const database = createDatabase({
    url: config.DATABASE_URL,
    schemaName: options.schemaName,
    tables: options.tables,
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: options.serviceName,
    logger,
  });
  let bus: Bus;
  try {
    // Streams and durable consumers are the NATS setup's (runNatsSetupOf): a process only publishes and binds.
    bus = await connectBus(busOptionsOf(config, options.serviceName, logger));
  } catch (error) {
    await database.close();
    throw error;
  }
  const { rateLimitsPerMinute, credentialOf, redisUrl, ...http } = options.http;
  const limits = rateLimitsPerMinute && {
    perMinute: rateLimitsPerMinute,
    counting: createRateLimitCounter({
      redisUrl,
      // Instances that share a database share limits (the database's name and the schema).
      namespace: `${parsePostgresUrl(config.DATABASE_URL)?.database ?? 'postgres'}:${options.schemaName}`,
      logger,
    }),
  };
  await limits?.counting.start();
  const { openapi, ...rest } = http;
  const app = await createHttpApp({
    service: options.serviceName,
    logger,
    ...rest,
    // The description is still built (tests and the build read it); only serving it is optional.
    ...(openapi ? { openapi: { ...openapi, serve: apiDocsOf(config) } } : {}),
    security: { hsts: config.APP_ENV !== 'local' },
    ...(config.METRICS_PORT !== undefined ? { metrics: { host: listenHostOf(config), port: config.METRICS_PORT } } : {}),
    ...(limits ? { rateLimit: { perMinute: limits.perMinute, counter: limits.counting.counter, credentialOf } } : {}),
    readiness: [
      { name: 'postgres', check: database.ping },
      { name: 'nats', check: bus.ping },
      ...Object.entries(options.chainRpcUrls ?? {}).map(([network, url]) =>
        chainRpcCheck(network, url, CHAIN_IDS[network as keyof typeof CHAIN_IDS]),
      ),
      ...(options.readiness ?? []),
    ],
  });
  return {
    database,
    bus,
    app,
    baseClosers: [
      ...(limits ? [{ name: 'rate-limit-counter', close: limits.counting.close }] : []),
      { name: 'nats', close: bus.close },
      { name: 'postgres', close: database.close },
    ],
  };
}

/** How a process connects to NATS: one place, used by the foundation and the start-up probe. */
function busOptionsOf(config: NatsConfig, serviceName: string, logger: Logger): BusOptions {
  return {
    url: config.NATS_URL,
    name: serviceName,
    prefix: config.NATS_SUBJECT_PREFIX,
    logger,
    credentials: { user: config.NATS_USER, password: config.NATS_PASSWORD, nkeySeed: config.NATS_NKEY_SEED },
    tls: { caFile: config.NATS_TLS_CA, certFile: config.NATS_TLS_CERT, keyFile: config.NATS_TLS_KEY },
  };
}

/**
 * What a process needs before it can be assembled: its PostgreSQL answers and NATS answers with
 * JetStream and the NATS setup's durable consumers of this process. Probed the way the process connects (same URL, options and credentials).
 */
function startupChecks(config: BaseConfig, serviceName: string, logger: Logger): ReadinessCheck[] {
  return [
    {
      name: 'postgres',
      check: () => pingOnce(config.DATABASE_URL, `${serviceName}-startup`),
    },
    {
      name: 'nats',
      check: async () => {
        const bus = await connectBus(busOptionsOf(config, serviceName, logger.child({ component: 'startup-probe' })));
        try {
          await bus.jsm.getAccountInfo();
          // The NATS setup has run (it runs before the processes): this process's durable consumers exist.
          for (const durable of Object.values(DURABLE_CONSUMERS).filter((d) => d.owner === serviceName)) {
            await bus.jsm.consumers.info(prefixedName(bus, STREAMS[durable.stream].name), prefixedName(bus, durable.name));
          }
        } finally {
          await bus.nc.close();
        }
      },
    },
  ];
}

/** The outbox relay of a process, publishing to JetStream. */
export function createEventRelay(foundation: Foundation<Record<string, unknown>>, schemaName: string, logger: Logger): OutboxRelay {
  return createOutboxRelay({
    sql: foundation.database.sql,
    schemaName,
    logger,
    publish: async (event) => {
      await publishEvent(foundation.bus, event);
    },
  });
}

/**
 * The body of every `main.ts`: load the configuration (exits with one line per problem), log
 * JSON, assemble the process, serve until SIGINT/SIGTERM, then drain and close.
 */
export async function runProcess<C extends BaseConfig>(options: {
  serviceName: string;
  loadConfig: () => C;
  port: (config: C) => number;
  create: (config: C, logger: Logger) => Promise<ServiceHandle>;
}): Promise<void> {
  const config = options.loadConfig();
  const logger = createLogger({ service: options.serviceName, level: config.LOG_LEVEL });
  exitOnUnhandled(logger);
  const tracing = await startTracing({
    serviceName: options.serviceName,
    endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    headers: parseHeaderList(config.OTEL_EXPORTER_OTLP_HEADERS),
    sampleRatio: config.OTEL_TRACES_SAMPLER_ARG,
  });
  if (tracing) logger.info({ endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, sampleRatio: config.OTEL_TRACES_SAMPLER_ARG }, 'tracing on');
  // Started before its database or NATS: wait (ready answers 503) instead of exiting.
  await waitForDependencies({
    host: listenHostOf(config),
    port: options.port(config),
    logger,
    checks: startupChecks(config, options.serviceName, logger),
  });
  let service: ServiceHandle;
  try {
    service = await options.create(config, logger);
  } catch (error) {
    // The dependencies answered a moment ago: a failure here is a misconfiguration or an outage
    // that began during start; exiting lets the supervisor start the process (and its wait) again.
    logger.fatal({ err: error }, 'could not start: a dependency is unreachable or misconfigured');
    process.exit(1);
  }
  await runUntilSignalled({
    app: service.app,
    host: listenHostOf(config),
    port: options.port(config),
    logger,
    onListening: service.startWorkers,
    // Spans of the drain are exported last.
    closers: tracing ? [...service.closers, { name: 'tracing', close: tracing.shutdown }] : service.closers,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
  });
  // Listening, workers started: what start-up allocated is garbage now (ADR 37).
  collectStartupGarbage(logger);
}

/** The body of every `migrate.ts`: apply the committed migrations next to `dist/`. */
export async function runMigrationsOf<C extends BaseConfig>(options: {
  serviceName: string;
  schemaName: string;
  loadConfig: () => C;
  /** `import.meta.url` of the calling module (dist/migrate.js). */
  moduleUrl: string;
}): Promise<void> {
  const config = options.loadConfig();
  const logger = createLogger({ service: options.serviceName, level: config.LOG_LEVEL });
  try {
    await runMigrations({
      url: config.DATABASE_URL,
      schemaName: options.schemaName,
      migrationsFolder: fileURLToPath(new URL('../drizzle', options.moduleUrl)),
      logger,
    });
  } catch (error) {
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    logger.fatal({ err: error, pgCode: cause?.code }, `migrations failed: ${cause?.message ?? (error as Error).message}`);
    process.exit(1);
  }
}

/**
 * The body of payments-service's `nats-setup.ts` (the NATS setup, run before the processes like the
 * migrations: ./scripts/start, the test stack, infra/k8s's Job `nats-setup`): creates or updates the
 * streams and every durable consumer under NATS_SUBJECT_PREFIX, as the NATS user `nats-setup`
 * (NATS_USER / NATS_PASSWORD of this run), the only user allowed to. Exits 1 when it cannot.
 */
export async function runNatsSetupOf(options: { serviceName: string; loadConfig: () => NatsConfig }): Promise<void> {
  const config = options.loadConfig();
  const logger = createLogger({ service: options.serviceName, level: config.LOG_LEVEL });
  let bus: Bus | undefined;
  try {
    bus = await connectBus(busOptionsOf(config, 'nats-setup', logger));
    await setUpNats(bus, { streams: { ...DEFAULT_STREAM_SETTINGS, replicas: config.NATS_STREAM_REPLICAS ?? 1 } });
    logger.info({ prefix: config.NATS_SUBJECT_PREFIX }, 'nats setup: streams and durable consumers up to date');
  } catch (error) {
    logger.fatal({ err: error }, `nats setup failed: ${(error as Error).message}`);
    process.exitCode = 1;
  } finally {
    await bus?.close();
  }
}

/**
 * The body of every `reencrypt.ts` (docs/operations.md#rotating-data_encryption_key): re-seals the
 * service's sealed columns under the current DATA_ENCRYPTION_KEY, opening old values with
 * DATA_ENCRYPTION_KEYS_PREVIOUS. Prints one line per column; exits 1 when a value no key opens.
 */
export async function runReencryptOf<
  C extends BaseConfig & { DATA_ENCRYPTION_KEY?: string | undefined; DATA_ENCRYPTION_KEYS_PREVIOUS?: string | undefined },
>(options: { serviceName: string; schemaName: string; loadConfig: () => C; columns: readonly SealedColumn[] }): Promise<ReencryptResult[]> {
  const config = options.loadConfig();
  const logger = createLogger({ service: options.serviceName, level: config.LOG_LEVEL });
  const box = createSecretBox(keyringFromConfig(config));
  const database = createDatabase({
    url: config.DATABASE_URL,
    schemaName: options.schemaName,
    tables: {},
    poolSize: 2,
    applicationName: `${options.serviceName}-reencrypt`,
    logger,
  });
  let results: ReencryptResult[];
  try {
    results = await reencryptColumns(database.sql, box, options.columns, logger);
  } finally {
    await database.close();
  }
  for (const r of results) console.log(`${r.column}: ${r.rewritten} re-encrypted, ${r.unreadable} unreadable`);
  if (results.some((r) => r.unreadable > 0)) process.exitCode = 1;
  return results;
}
