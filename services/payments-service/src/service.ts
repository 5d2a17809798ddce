import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
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
import { createBatchesRepository } from './modules/batches/repository.js';
import { registerBatchRoutes } from './modules/batches/routes.js';
import { createBatchesService } from './modules/batches/service.js';
import { createOAuthRepository } from './modules/oauth/repository.js';
import { registerOAuthRoutes } from './modules/oauth/routes.js';
import { createOAuthService } from './modules/oauth/service.js';
import { createPlatformsRepository } from './modules/platforms/repository.js';
import { registerPlatformRoutes } from './modules/platforms/routes.js';
import { createPlatformsService } from './modules/platforms/service.js';
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

  // Batches: one sender, many legs, created atomically.
  registerBatchRoutes(
    app,
    createBatchesService({
      repository: createBatchesRepository(database.sql),
      appEnv: config.APP_ENV,
      maxLegs: config.PAYMENTS_MAX_BATCH_LEGS,
    }),
  );

  if (config.PAYMENTS_BOOTSTRAP_API_KEY) await platforms.ensureBootstrap(config.PAYMENTS_BOOTSTRAP_API_KEY);

  const relay = createEventRelay(foundation, SCHEMA_NAME, logger);
  let stopCommands = () => {};

  return {
    app,
    startWorkers: async () => {
      await feed.start();
      stopCommands = serveWorkspaceAccessCommands(bus, SERVICE_NAME, workspaceAccess, oauth);
      await relay.start();
    },
    closers: [
      { name: 'commands', close: async () => stopCommands() },
      { name: 'credential invalidation feed', close: feed.stop },
      { name: 'outbox relay', close: relay.stop },
      ...foundation.baseClosers,
    ],
  };
}
