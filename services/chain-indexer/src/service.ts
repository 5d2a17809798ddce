import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { createFoundation } from '@holdfast/runtime';
import { type IndexerConfig, SERVICE_NAME } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';

/** Assembles chain-indexer: its database, NATS, a readiness check per followed chain, health and metrics. */
export async function createIndexerService(config: IndexerConfig, logger: Logger): Promise<ServiceHandle> {
  const foundation = await createFoundation({
    serviceName: SERVICE_NAME,
    schemaName: SCHEMA_NAME,
    tables,
    config,
    logger,
    chainRpcUrls: config.chainRpcUrls,
    http: { apiVersion: () => 'v1' },
  });
  return {
    app: foundation.app,
    startWorkers: async () => {},
    closers: foundation.baseClosers,
  };
}
