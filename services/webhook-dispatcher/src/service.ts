import { randomUUID } from 'node:crypto';
import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import type { RunningConsumer } from '@holdfast/messaging';
import { createFoundation } from '@holdfast/runtime';
import { createSecretBox, keyringFromConfig } from '@holdfast/secrets';
import { type DispatcherConfig, SERVICE_NAME } from './config.js';
import { DELIVERIES_WAKE_CHANNEL } from './db/channels.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { createDeliveryAttempt } from './modules/deliveries/attempt.js';
import { serveDeliveryCommands } from './modules/deliveries/commands.js';
import { registerDeliveryMetrics } from './modules/deliveries/metrics.js';
import { createDeliveriesRepository } from './modules/deliveries/repository.js';
import { createDeliveryService } from './modules/deliveries/service.js';
import { createDeliveryWorker, SETTLE_WITHIN_MS } from './modules/deliveries/worker.js';
import { createIntakeRepository } from './modules/intake/repository.js';
import { startEventIntake } from './modules/intake/service.js';
import { createRetentionRepository } from './modules/retention/repository.js';
import { createRetentionPurge } from './modules/retention/service.js';
import { serveSubscriptionCommands } from './modules/subscriptions/commands.js';
import { createSubscriptionsRepository } from './modules/subscriptions/repository.js';
import { createSubscriptionsService } from './modules/subscriptions/service.js';
import { createTargetPolicy, type Resolver } from './modules/target-safety/service.js';

/** What tests (and only tests) may replace; production uses the defaults. */
export interface DispatcherOverrides {
  /** Host name resolution for the target policy (default: the system's). */
  resolver?: Resolver;
  /** Longest idle wait of the delivery loop (default 500 ms). */
  pollIntervalMs?: number;
  /** Retention purge period (default one hour). */
  purgeEveryMs?: number;
  /** Longest wait before a success that left the delivery worker idle is stored (default SETTLE_WITHIN_MS). */
  settleWithinMs?: number;
}

/**
 * Assembles webhook-dispatcher: the event intake (events -> deliveries), the delivery worker, the
 * retention purge, the subscription and delivery commands both APIs call, health and metrics.
 */
export async function createDispatcherService(
  config: DispatcherConfig,
  logger: Logger,
  overrides: DispatcherOverrides = {},
): Promise<ServiceHandle> {
  const foundation = await createFoundation({
    serviceName: SERVICE_NAME,
    schemaName: SCHEMA_NAME,
    tables,
    config,
    logger,
    http: { apiVersion: () => 'v1' },
  });
  const { sql } = foundation.database;
  const { bus } = foundation;

  const secrets = createSecretBox(keyringFromConfig(config));
  if (!config.DATA_ENCRYPTION_KEY)
    logger.warn('DATA_ENCRYPTION_KEY is not set: webhook secrets are sealed with the public local development key');
  const policy = createTargetPolicy({
    appEnv: config.APP_ENV,
    connectTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    ...(overrides.resolver ? { resolver: overrides.resolver } : {}),
  });
  const subscriptionsRepository = createSubscriptionsRepository(sql);
  const subscriptions = createSubscriptionsService({ repository: subscriptionsRepository, policy, secrets });
  const deliveriesRepository = createDeliveriesRepository(sql);
  const metrics = registerDeliveryMetrics(foundation.app.metrics, {
    pendingCount: deliveriesRepository.pendingCount,
    circuitCounts: subscriptionsRepository.circuitCounts,
  });
  const attempt = createDeliveryAttempt({ policy, secrets });
  const deliveries = createDeliveryService({
    repository: deliveriesRepository,
    attempt,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    requireSubscription: subscriptions.requireOwned,
    metrics,
  });

  const commands = [
    ...serveSubscriptionCommands(bus, SERVICE_NAME, subscriptions),
    ...serveDeliveryCommands(bus, SERVICE_NAME, deliveries),
  ];
  let intake: RunningConsumer | undefined;
  // NOTIFY wakes the delivery workers of every instance (new deliveries, a resend, a replay, a reset circuit).
  // This process's intake wakes its worker itself after a commit; its own NOTIFY is skipped.
  const origin = randomUUID();
  const worker = createDeliveryWorker({
    repository: deliveriesRepository,
    attempt,
    logger,
    metrics,
    settings: {
      retryScheduleMs: config.retryScheduleMs,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      circuitThreshold: config.WEBHOOK_CIRCUIT_THRESHOLD,
      circuitCooldownMs: config.circuitCooldownMs,
      concurrency: config.WEBHOOK_CONCURRENCY,
      perSubscription: config.WEBHOOK_SUBSCRIPTION_CONCURRENCY,
      pollIntervalMs: overrides.pollIntervalMs ?? 500,
      settleWithinMs: overrides.settleWithinMs ?? SETTLE_WITHIN_MS,
    },
    wakeOn: async (wake) =>
      (
        await sql.listen(DELIVERIES_WAKE_CHANNEL, (from) => {
          if (from !== origin) wake();
        })
      ).unlisten,
  });

  const purge = createRetentionPurge({
    repository: createRetentionRepository(sql),
    logger,
    ...(overrides.purgeEveryMs ? { everyMs: overrides.purgeEveryMs } : {}),
  });

  return {
    app: foundation.app,
    startWorkers: async () => {
      await worker.start();
      intake = await startEventIntake({ bus, repository: createIntakeRepository(sql, origin), logger, onDeliveries: worker.wake });
      await purge.start();
    },
    closers: [
      {
        name: 'webhook commands',
        close: async () => {
          for (const subscription of commands) subscription.unsubscribe();
        },
      },
      { name: 'event intake', close: async () => intake?.stop() },
      { name: 'delivery worker', close: worker.stop },
      { name: 'retention purge', close: purge.stop },
      { name: 'outbound connections', close: policy.close },
      ...foundation.baseClosers,
    ],
  };
}
