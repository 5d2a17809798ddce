import { CHAIN_IDS } from '@holdfast/contracts';
import { createDatabase, createOutboxRelay } from '@holdfast/db';
import { chainRpcCheck, createHttpApp, type ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { connectBus, ensureStreams, publishEvent } from '@holdfast/messaging';
import type { PaymentsConfig } from './config.js';
import { SERVICE_NAME } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { openApiInfo, v1Deprecation } from './http/surface.js';

/** Assembles payments-service from its configuration: database, NATS, HTTP routes, outbox relay. */
export async function createPaymentsService(config: PaymentsConfig, logger: Logger): Promise<ServiceHandle> {
  const database = createDatabase({
    url: config.DATABASE_URL,
    schemaName: SCHEMA_NAME,
    tables,
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: SERVICE_NAME,
    logger,
  });
  const bus = await connectBus({ url: config.NATS_URL, name: SERVICE_NAME, prefix: config.NATS_SUBJECT_PREFIX, logger });
  await ensureStreams(bus);

  const app = await createHttpApp({
    service: SERVICE_NAME,
    logger,
    bodyLimit: config.HTTP_BODY_LIMIT,
    apiVersion: (url) => (url.startsWith('/api/v1') ? 'v1' : 'v2'),
    openapi: openApiInfo,
    deprecations: [v1Deprecation(config.v1SunsetEnforced)],
    readiness: [
      { name: 'postgres', check: database.ping },
      { name: 'nats', check: bus.ping },
      ...Object.entries(config.chainRpcUrls).map(([network, url]) =>
        chainRpcCheck(network, url, CHAIN_IDS[network as keyof typeof CHAIN_IDS]),
      ),
    ],
  });

  const relay = createOutboxRelay({
    sql: database.sql,
    schemaName: SCHEMA_NAME,
    publish: async (event) => void (await publishEvent(bus, event)),
    logger,
  });

  return {
    app,
    startWorkers: relay.start,
    closers: [
      { name: 'outbox relay', close: relay.stop },
      { name: 'nats', close: bus.close },
      { name: 'postgres', close: database.close },
    ],
  };
}
