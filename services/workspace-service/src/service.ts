import fastifyJwt from '@fastify/jwt';
import { INDEXER_COMMANDS } from '@holdfast/contracts';
import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { DEFAULT_REMOTE_TASK_SETTINGS, type RemoteTaskSettings, type RunningConsumer, sendCommand } from '@holdfast/messaging';
import type { Resolver } from '@holdfast/outbound';
import { createFoundation, createRetentionSweeper } from '@holdfast/runtime';
import { createSecretBox, keyringFromConfig } from '@holdfast/secrets';
import { SERVICE_NAME, type WorkspaceConfig } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { createStore, type Executor } from './db/store.js';
import { registerWorkspaceApi } from './http/api.js';
import { openApiInfo, unversionedDeprecation } from './http/surface.js';
import { rateLimitCallerOf } from './modules/access/hooks.js';
import { createPrincipalCache, type PrincipalChanges } from './modules/access/principal-cache.js';
import {
  accessTokensFrom,
  customerTokensFrom,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  verificationCodeHasher,
  workspaceKeys,
} from './modules/access/tokens.js';
import { createAuditRepository } from './modules/audit/repository.js';
import { auditRoutes } from './modules/audit/routes.js';
import { createAuditService } from './modules/audit/service.js';
import { createCatalogService } from './modules/catalog/service.js';
import { createCustomerAdmin } from './modules/customers/admin.js';
import { createCustomerSessions } from './modules/customers/customer-sessions.js';
import { createCustomersRepository } from './modules/customers/repository.js';
import { customerAuthRoutes, globalCustomerRoutes, workspaceCustomerRoutes } from './modules/customers/routes.js';
import { createInsertCustomer } from './modules/customers/shared.js';
import { createIntegrationProviders } from './modules/integrations/adapters.js';
import { createIntegrationsRepository } from './modules/integrations/repository.js';
import { integrationsRoutes } from './modules/integrations/routes.js';
import { createIntegrationsService } from './modules/integrations/service.js';
import { createHttpMailer, createLogMailer, type Mailer } from './modules/mailer/adapter.js';
import { startNotificationConsumer } from './modules/notifications/consumer.js';
import { createNotificationsRepository } from './modules/notifications/repository.js';
import { notificationsRoutes } from './modules/notifications/routes.js';
import { createNotificationsService } from './modules/notifications/service.js';
import { oauthClientRoutes, oauthScopeRoutes } from './modules/oauth-clients/routes.js';
import { createOAuthClientsService } from './modules/oauth-clients/service.js';
import { createRemoteTasksRepository } from './modules/remote-tasks/repository.js';
import {
  checkoutSettingsHandler,
  createRemoteTaskRunner,
  deactivationHandlers,
  type RemoteTaskRunner,
  task,
} from './modules/remote-tasks/service.js';
import { createWorkspaceRetentionRepository } from './modules/retention/repository.js';
import { createSandboxIssuancesRepository } from './modules/sandbox-credentials/repository.js';
import { sandboxCredentialRoutes } from './modules/sandbox-credentials/routes.js';
import {
  createSandboxCredentialsService,
  DEFAULT_RECONCILE_AFTER_MS,
  reconcileIssuanceHandler,
} from './modules/sandbox-credentials/service.js';
import { createSessionsRepository } from './modules/sessions/repository.js';
import { hostRootSessionRoutes, versionedSessionRoutes } from './modules/sessions/routes.js';
import { createSessionsService } from './modules/sessions/service.js';
import { createSettingsRepository } from './modules/settings/repository.js';
import { settingsRoutes } from './modules/settings/routes.js';
import { createSettingsService } from './modules/settings/service.js';
import { createLocalDiskStorage } from './modules/storage/adapter.js';
import { createAvatarStore } from './modules/storage/avatars.js';
import { avatarFileRoutes } from './modules/storage/routes.js';
import { createTransactionScopeRepository } from './modules/transactions/repository.js';
import { transactionRoutes } from './modules/transactions/routes.js';
import { createTransactionsService } from './modules/transactions/service.js';
import { createUsersRepository } from './modules/users/repository.js';
import { usersRoutes } from './modules/users/routes.js';
import { createUsersService } from './modules/users/service.js';
import { createWalletApi } from './modules/wallets/api.js';
import { walletAuditSink } from './modules/wallets/common/audit.js';
import { autoCreateWalletHandler } from './modules/wallets/customer/auto-create.js';
import { createWalletFeatures } from './modules/wallets/features.js';
import { walletAccountRoutes } from './modules/wallets/routes/accounts.js';
import { contractRoutes } from './modules/wallets/routes/contracts.js';
import { custodyAWalletRoutes, customerSelfWalletRoutes } from './modules/wallets/routes/customer.js';
import { externalWalletConfigRoutes } from './modules/wallets/routes/external.js';
import { walletProviderConfigRoutes } from './modules/wallets/routes/provider-configs.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { createWebhooksService } from './modules/webhooks/service.js';
import { createPlatformMappingsRepository } from './modules/workspaces/platform-mappings.js';
import { createWorkspacesRepository } from './modules/workspaces/repository.js';
import { workspacesRoutes } from './modules/workspaces/routes.js';
import { createWorkspacesService } from './modules/workspaces/service.js';

/** Every repository of the service, on the pool or inside one transaction. */
function repositories(executor: Executor, principals: PrincipalChanges) {
  return {
    users: createUsersRepository(executor, principals),
    sessions: createSessionsRepository(executor, principals),
    workspaces: createWorkspacesRepository(executor, principals),
    platformMappings: createPlatformMappingsRepository(executor),
    sandboxIssuances: createSandboxIssuancesRepository(executor),
    remoteTasks: createRemoteTasksRepository(executor),
    audit: createAuditRepository(executor),
    integrations: createIntegrationsRepository(executor),
    settings: createSettingsRepository(executor),
    notifications: createNotificationsRepository(executor),
    customers: createCustomersRepository(executor, principals),
    transactionScope: createTransactionScopeRepository(executor),
  };
}

/** What tests (and only tests) may change; production uses the defaults. */
export interface WorkspaceOverrides {
  /** The remote task runner's poll interval and retry backoff. */
  remoteTasks?: Partial<RemoteTaskSettings>;
  /** How long after a sandbox issuance began its unrecorded outcome is reconciled. */
  sandboxReconcileAfterMs?: number;
  /** Host name resolution of the outbound policy guarding vendor URLs (default: the system's). */
  outboundResolver?: Resolver;
}

function mailerOf(config: WorkspaceConfig, logger: Logger): Mailer {
  return config.mailer.transport === 'http'
    ? createHttpMailer({ url: config.mailer.url, apiKey: config.mailer.apiKey, from: config.mailer.from, logger })
    : createLogMailer({ from: config.mailer.from, logger });
}

/** Assembles workspace-service from its configuration: database, NATS, HTTP routes, background workers. */
export async function createWorkspaceService(
  config: WorkspaceConfig,
  logger: Logger,
  overrides: WorkspaceOverrides = {},
): Promise<ServiceHandle> {
  // Set once the token verifiers exist (below); until then every request counts per address.
  let rateLimitCaller: ReturnType<typeof rateLimitCallerOf> | undefined;
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
      redisUrl: config.REDIS_URL,
      credentialOf: (request) => rateLimitCaller?.(request),
      trustProxy: config.trustProxy,
    },
  });
  const { app, bus } = foundation;
  let startNotifications: (() => Promise<RunningConsumer>) | undefined;
  let startRegistration: () => Promise<void> = async () => {};
  let stopRegistration: () => Promise<void> = async () => {};
  let remoteTasks: RemoteTaskRunner | undefined;
  let closeOutbound: () => Promise<void> = async () => {};
  const principals = createPrincipalCache({ sql: foundation.database.sql, ttlMs: config.principalCacheTtlMs, logger });
  if (config.jwtSecretGenerated) {
    logger.warn('JWT_SECRET is not set: using a random secret for this run (APP_ENV=local only); sessions end when the process restarts');
  }

  try {
    const keys = workspaceKeys(config.jwtSecret);
    await app.register(fastifyJwt, {
      secret: keys.accessTokens,
      sign: { algorithm: 'HS256', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, expiresIn: `${config.accessTokenTtlSeconds}s` },
      verify: { algorithms: ['HS256'], allowedIss: TOKEN_ISSUER, allowedAud: TOKEN_AUDIENCE },
    });
    const tokens = accessTokensFrom(app.jwt, config.accessTokenTtlSeconds);
    const store = createStore(foundation.database.db, (executor) => repositories(executor, principals));
    const avatars = createAvatarStore({ storage: createLocalDiskStorage(config.WORKSPACE_STORAGE_DIR), logger });
    const workspaceExists = async (id: string) => (await store.repos.workspaces.findById(id)) !== undefined;
    const audit = createAuditService({ store, workspaceExists, userOf: (id) => store.repos.users.findById(id), logger });
    const sessions = createSessionsService({
      store,
      audit,
      tokens,
      mailer: mailerOf(config, logger),
      hashCode: verificationCodeHasher(keys.verificationCodes),
      appEnv: config.APP_ENV,
      refreshTokenTtlMs: config.refreshTokenTtlMs,
      logger,
      principals,
    });
    const users = createUsersService({ store, audit, avatars });
    const catalog = createCatalogService({ workspaceExists });
    const secrets = createSecretBox(keyringFromConfig(config));
    const integrations = createIntegrationsService({
      store,
      audit,
      secrets,
      providers: createIntegrationProviders(config.integrations.providerUrls, { timeoutMs: config.integrations.providerTimeoutMs, logger }),
    });
    const settings = createSettingsService({ store, audit, secrets });
    const notifications = createNotificationsService({ store, audit, logger });
    startNotifications = () => startNotificationConsumer({ bus: foundation.bus, notifications, logger });
    // Customers and wallets (issue 8).
    const customerTokens = customerTokensFrom(app.jwt, config.accessTokenTtlSeconds);
    rateLimitCaller = rateLimitCallerOf(tokens, customerTokens);
    const insertCustomer = createInsertCustomer({
      store,
      audit,
      // The runner is built below (its handlers need the wallet features, which need the customers).
      tasks: { attempt: (ids) => remoteTasks?.attempt(ids) ?? Promise.resolve() },
    });
    const customerAdmin = createCustomerAdmin({ store, audit, insertCustomer });
    const customerSessions = createCustomerSessions({
      store,
      audit,
      insertCustomer,
      tokens: customerTokens,
      refreshTokenTtlMs: config.refreshTokenTtlMs,
      logger,
      principals,
    });
    const walletFeatures = createWalletFeatures({
      db: foundation.database.db,
      settings: config.wallets,
      logger,
      audit: walletAuditSink(audit),
      workspaceWalletProvider: async (id) => (await store.repos.workspaces.findById(id))?.walletProvider ?? null,
      findCustomer: customerAdmin.findCustomer,
      followContract: (request) => sendCommand(foundation.bus, INDEXER_COMMANDS.followContract, request, { timeoutMs: 5_000 }),
      ...(overrides.outboundResolver ? { outboundResolver: overrides.outboundResolver } : {}),
      checkoutSync: {
        enqueue: (tx, workspaceId) =>
          createRemoteTasksRepository(tx as unknown as Executor).enqueue([task.syncCheckoutWalletSettings(workspaceId)]),
        attempt: (ids) => remoteTasks?.attempt(ids) ?? Promise.resolve(),
      },
    });
    closeOutbound = walletFeatures.outbound.close;
    const wallets = createWalletApi({ features: walletFeatures, workspaceExists, customerIn: customerSessions.customerIn });
    if (walletFeatures.contractRegistration) {
      startRegistration = walletFeatures.contractRegistration.start;
      stopRegistration = walletFeatures.contractRegistration.stop;
    }
    if (!config.INTERNAL_API_KEY) {
      logger.warn('INTERNAL_API_KEY is not set (APP_ENV=local only): GET /api/v1/wallet-provider-configs/status refuses every call');
    }
    // Commands owed to payments and the dispatcher (workspace deletion, sandbox issuances), durable.
    const runner = createRemoteTaskRunner({
      store,
      logger,
      registry: app.metrics,
      settings: { ...DEFAULT_REMOTE_TASK_SETTINGS, ...overrides.remoteTasks },
      handlers: {
        ...deactivationHandlers({ bus }),
        'sandbox.reconcile-issuance': reconcileIssuanceHandler({ bus, logger }),
        'customer-wallets.auto-create': autoCreateWalletHandler({ customerWallets: walletFeatures.customerWallets }),
        'payments.sync-checkout-wallet-settings': checkoutSettingsHandler({
          bus,
          settingsOf: walletFeatures.externalWalletConfigs.checkoutSettings,
        }),
      },
    });
    remoteTasks = runner;
    const workspaces = createWorkspacesService({ store, audit, avatars, appEnv: config.APP_ENV, tasks: runner });
    const sandbox = createSandboxCredentialsService({
      store,
      audit,
      bus,
      tasks: runner,
      logger,
      reconcileAfterMs: overrides.sandboxReconcileAfterMs ?? DEFAULT_RECONCILE_AFTER_MS,
    });
    const oauthClients = createOAuthClientsService({ store, audit, bus });
    const webhooks = createWebhooksService({ store, audit, bus, catalog });
    const transactions = createTransactionsService({ store, audit, bus });

    await registerWorkspaceApi(app, {
      tokens,
      actorFor: sessions.actorFor,
      customers: { tokens: customerTokens, customerFor: customerSessions.customerFor },
      internalApiKey: config.INTERNAL_API_KEY,
      workspaceKeys: transactions.verifyKey,
      audit,
      logger,
      hostRoot: [hostRootSessionRoutes(sessions), avatarFileRoutes(avatars)],
      versioned: [
        versionedSessionRoutes(sessions),
        workspacesRoutes({ workspaces, audit }),
        usersRoutes({ users, audit }),
        auditRoutes(audit),
        sandboxCredentialRoutes(sandbox),
        oauthScopeRoutes(catalog),
        integrationsRoutes(integrations),
        settingsRoutes(settings),
        notificationsRoutes(notifications),
        workspaceCustomerRoutes(customerAdmin),
        globalCustomerRoutes(customerAdmin),
        customerAuthRoutes(customerSessions),
        customerSelfWalletRoutes(wallets),
        custodyAWalletRoutes(wallets),
        walletProviderConfigRoutes(wallets),
        externalWalletConfigRoutes(wallets),
        walletAccountRoutes(wallets),
        contractRoutes(wallets),
        oauthClientRoutes(oauthClients),
        webhookRoutes(webhooks),
        transactionRoutes(transactions),
      ],
    });

    if (config.WORKSPACE_BOOTSTRAP_EMAIL && config.WORKSPACE_BOOTSTRAP_PASSWORD) {
      const outcome = await sessions.ensureSuperAdmin(config.WORKSPACE_BOOTSTRAP_EMAIL, config.WORKSPACE_BOOTSTRAP_PASSWORD);
      logger.info({ outcome }, 'bootstrap SUPER_ADMIN ensured (WORKSPACE_BOOTSTRAP_EMAIL)');
    }
  } catch (error) {
    for (const closer of foundation.baseClosers) await closer.close().catch(() => undefined);
    throw error;
  }

  let notificationConsumer: RunningConsumer | undefined;
  const retentionRepository = createWorkspaceRetentionRepository(foundation.database.sql);
  const retention = createRetentionSweeper({
    logger,
    everyMs: config.retention.everyMs,
    sweep: () => retentionRepository.sweep(config.retention.horizons),
  });
  const runner = remoteTasks!;
  return {
    app,
    startWorkers: async () => {
      await principals.start();
      notificationConsumer = await startNotifications?.();
      await startRegistration();
      await runner.start();
      await retention.start();
    },
    closers: [
      { name: 'remote tasks', close: runner.stop },
      { name: 'retention sweeper', close: retention.stop },
      { name: 'contract registration', close: () => stopRegistration() },
      { name: 'notification consumer', close: async () => notificationConsumer?.stop() },
      { name: 'outbound connections', close: () => closeOutbound() },
      { name: 'principal cache', close: principals.stop },
      ...foundation.baseClosers,
    ],
  };
}
