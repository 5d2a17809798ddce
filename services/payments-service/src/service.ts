import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { createEventRelay, createFoundation } from '@holdfast/runtime';
import { type PaymentsConfig, SERVICE_NAME } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { openApiInfo, v1Deprecation } from './http/surface.js';

/** Assembles payments-service from its configuration: database, NATS, HTTP routes, outbox relay. */
export async function createPaymentsService(config: PaymentsConfig, logger: Logger): Promise<ServiceHandle> {
  const foundation = await createFoundation({
    serviceName: SERVICE_NAME,
    schemaName: SCHEMA_NAME,
    tables,
    config,
    logger,
    chainRpcUrls: config.chainRpcUrls,
    http: {
      apiVersion: (url) => (url.startsWith('/api/v1') ? 'v1' : 'v2'),
      openapi: openApiInfo,
      deprecations: [v1Deprecation(config.v1SunsetEnforced)],
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
