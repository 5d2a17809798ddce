import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import type { RunningConsumer } from '@holdfast/messaging';
import { createFoundation } from '@holdfast/runtime';
import { type DispatcherConfig, SERVICE_NAME } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { createIntakeRepository } from './modules/intake/repository.js';
import { startEventIntake } from './modules/intake/service.js';

/** Assembles webhook-dispatcher: its database, NATS, the event intake, health and metrics. */
export async function createDispatcherService(config: DispatcherConfig, logger: Logger): Promise<ServiceHandle> {
  const foundation = await createFoundation({
    serviceName: SERVICE_NAME,
    schemaName: SCHEMA_NAME,
    tables,
    config,
    logger,
    http: { apiVersion: () => 'v1' },
  });
  const repository = createIntakeRepository(foundation.database.db);
  let intake: RunningConsumer | undefined;

  return {
    app: foundation.app,
    startWorkers: async () => {
      intake = await startEventIntake({ bus: foundation.bus, repository, logger });
    },
    closers: [{ name: 'event intake', close: async () => intake?.stop() }, ...foundation.baseClosers],
  };
}
