/**
 * How a process starts: the `main.ts` of every service (`runProcess`) and its one-shot commands
 * (migrations, NATS setup, re-encryption), on top of the foundation.
 */
import { fileURLToPath } from 'node:url';
import { listenHostOf, parseHeaderList } from '@holdfast/config';
import { createDatabase, type ReencryptResult, reencryptColumns, runMigrations, type SealedColumn } from '@holdfast/db';
import { exitOnUnhandled, runUntilSignalled, type ServiceHandle, waitForDependencies } from '@holdfast/http-kit';
import { createLogger, type Logger } from '@holdfast/logging';
import { type Bus, connectBus, DEFAULT_STREAM_SETTINGS, setUpNats } from '@holdfast/messaging';
import { createSecretBox, keyringFromConfig } from '@holdfast/secrets';
import { type BaseConfig, busOptionsOf, type NatsConfig, startupChecks } from './foundation.js';
import { collectStartupGarbage } from './startup-heap.js';
import { startTracing } from './tracing.js';

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
