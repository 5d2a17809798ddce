import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { createEventRelay, createFoundation } from '@holdfast/runtime';
import { SERVICE_NAME, type WorkspaceConfig } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { openApiInfo, unversionedDeprecation } from './http/surface.js';

/** Assembles workspace-service from its configuration: database, NATS, HTTP routes, outbox relay. */
export async function createWorkspaceService(config: WorkspaceConfig, logger: Logger): Promise<ServiceHandle> {
  const foundation = await createFoundation({
    serviceName: SERVICE_NAME,
    schemaName: SCHEMA_NAME,
    tables,
    config,
    logger,
    chainRpcUrls: config.chainRpcUrls,
    http: {
      apiVersion: () => 'v1',
      openapi: openApiInfo,
      deprecations: [unversionedDeprecation(config.unversionedSunsetEnforced)],
      bodyLimit: config.HTTP_BODY_LIMIT,
      rateLimitsPerMinute: config.rateLimitsPerMinute,
    },
  });
  const relay = createEventRelay(foundation, SCHEMA_NAME, logger);

  return {
    app: foundation.app,
    startWorkers: relay.start,
    closers: [{ name: 'outbox relay', close: relay.stop }, ...foundation.baseClosers],
  };
}
