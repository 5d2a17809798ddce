import { apiDocsOf, listenHostOf, parsePostgresUrl } from '@holdfast/config';
import { CHAIN_IDS, DURABLE_CONSUMERS, STREAMS } from '@holdfast/contracts';
import { createDatabase, type Database, pingOnce } from '@holdfast/db';
import {
  type Closer,
  chainRpcCheck,
  createHttpApp,
  type DeprecatedSurface,
  type HttpApp,
  type OpenApiInfo,
  type RateLimitSettings,
  type RateLimitTier,
  type ReadinessCheck,
} from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { type Bus, type BusOptions, connectBus, prefixedName } from '@holdfast/messaging';
import { createRateLimitCounter } from './rate-limits.js';

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
  if (config.APP_ENV === 'production' && config.METRICS_PORT === undefined)
    logger.warn('/metrics is not served: set METRICS_PORT to serve it on an internal port (never on the API port in production)');
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
    // In production /metrics is never on the API's port (it names routes, tenants' traffic, the
    // relayer's balance): on METRICS_PORT, or nowhere (and said at start).
    ...(config.METRICS_PORT !== undefined
      ? { metrics: { host: listenHostOf(config), port: config.METRICS_PORT } }
      : config.APP_ENV === 'production'
        ? { metrics: 'unserved' as const }
        : {}),
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
export function busOptionsOf(config: NatsConfig, serviceName: string, logger: Logger): BusOptions {
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
export function startupChecks(config: BaseConfig, serviceName: string, logger: Logger): ReadinessCheck[] {
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
