import { ChainEvent, CONSUMERS } from '@holdfast/contracts';
import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { type RunningConsumer, startConsumer } from '@holdfast/messaging';
import { createEventRelay, createFoundation } from '@holdfast/runtime';
import { type PaymentsConfig, SERVICE_NAME } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { openApiInfo, v1Deprecation } from './http/surface.js';
import { createCredentialCache } from './modules/auth/cache.js';
import { createInvalidationFeed } from './modules/auth/invalidation-feed.js';
import { rateLimitCredentialOf, registerAuth } from './modules/auth/plugin.js';
import { createAuthRepository } from './modules/auth/repository.js';
import { createAuthenticator } from './modules/auth/service.js';
import { createOAuthRepository } from './modules/oauth/repository.js';
import { registerOAuthRoutes } from './modules/oauth/routes.js';
import { createOAuthService } from './modules/oauth/service.js';
import { createPlatformsRepository } from './modules/platforms/repository.js';
import { registerPlatformRoutes } from './modules/platforms/routes.js';
import { createPlatformsService } from './modules/platforms/service.js';
import { createChainAccess } from './modules/settlement/chain.js';
import { createSettlementRepository } from './modules/settlement/repository.js';
import { registerSettlementRoutes } from './modules/settlement/routes.js';
import { createSettlementService } from './modules/settlement/service.js';
import { createSettlementWorker } from './modules/settlement/worker.js';
import { createTransactionMoves } from './modules/transactions/moves.js';
import { createTransactionsRepository } from './modules/transactions/repository.js';
import { registerWebhookRoutes } from './modules/webhooks/routes.js';
import { createWebhooksService } from './modules/webhooks/service.js';
import { serveWorkspaceAccessCommands } from './modules/workspace-access/commands.js';
import { createWorkspaceAccessService } from './modules/workspace-access/service.js';

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
      credentialOf: rateLimitCredentialOf,
    },
  });
  const { app, bus, database } = foundation;

  // Access: credential verification (cache + invalidation feed), platforms and keys, OAuth.
  const cache = createCredentialCache();
  const authRepository = createAuthRepository(database.sql);
  const feed = createInvalidationFeed({ repository: authRepository, cache, bus, logger });
  registerAuth(app, createAuthenticator({ repository: authRepository, cache, feed, appEnv: config.APP_ENV }));

  const platformsRepository = createPlatformsRepository(database.sql);
  const platforms = createPlatformsService({ repository: platformsRepository, feed, appEnv: config.APP_ENV });
  const oauthRepository = createOAuthRepository(database.sql);
  const oauth = createOAuthService({ repository: oauthRepository, platforms: platformsRepository, feed });
  const workspaceAccess = createWorkspaceAccessService({ platformsRepository, platforms, oauthRepository, oauth, feed });

  registerPlatformRoutes(app, platforms);
  await registerOAuthRoutes(app, oauth, { publicUrl: config.publicUrl });
  await registerWebhookRoutes(app, createWebhooksService({ bus }), { workspaceApiUrl: config.workspaceApiUrl });

  // Settlement: the on-chain operations, the CHAIN consumer and the attester's worker (docs/settlement.md).
  const transactionsRepository = createTransactionsRepository();
  const moves = createTransactionMoves({ repository: transactionsRepository });
  const chain = createChainAccess({ appEnv: config.APP_ENV, rpcUrls: config.chainRpcUrls, ...config.settlement });
  const settlementRepository = createSettlementRepository();
  const settlement = createSettlementService({
    sql: database.sql,
    moves,
    transactions: transactionsRepository,
    repository: settlementRepository,
    chain,
    logger,
  });
  registerSettlementRoutes(app, settlement);
  const settlementWorker = createSettlementWorker({
    sql: database.sql,
    repository: settlementRepository,
    transactions: transactionsRepository,
    chain,
    logger,
    pollIntervalMs: config.settlement.pollIntervalMs,
  });
  let chainConsumer: RunningConsumer | undefined;

  if (config.PAYMENTS_BOOTSTRAP_API_KEY) await platforms.ensureBootstrap(config.PAYMENTS_BOOTSTRAP_API_KEY);

  const relay = createEventRelay(foundation, SCHEMA_NAME, logger);
  let stopCommands = () => {};

  return {
    app,
    startWorkers: async () => {
      await feed.start();
      stopCommands = serveWorkspaceAccessCommands(bus, SERVICE_NAME, workspaceAccess, oauth);
      await relay.start();
      chainConsumer = await startConsumer({
        bus,
        stream: 'CHAIN',
        durable: CONSUMERS.paymentsChain,
        filterSubject: 'chain.>',
        schema: ChainEvent,
        logger,
        concurrency: 1,
        handler: async (event) => {
          await settlement.handleChainEvent(event);
        },
      });
      if (chain.attesterAddress()) settlementWorker.start();
    },
    closers: [
      { name: 'commands', close: async () => stopCommands() },
      { name: 'chain consumer', close: async () => chainConsumer?.stop() },
      { name: 'settlement worker', close: settlementWorker.stop },
      { name: 'credential invalidation feed', close: feed.stop },
      { name: 'outbox relay', close: relay.stop },
      ...foundation.baseClosers,
    ],
  };
}
