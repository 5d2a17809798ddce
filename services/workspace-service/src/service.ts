import fastifyJwt from '@fastify/jwt';
import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { createEventRelay, createFoundation } from '@holdfast/runtime';
import { SERVICE_NAME, type WorkspaceConfig } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { createStore, type Executor } from './db/store.js';
import { registerWorkspaceApi } from './http/api.js';
import { openApiInfo, unversionedDeprecation } from './http/surface.js';
import { accessTokensFrom, TOKEN_AUDIENCE, TOKEN_ISSUER, verificationCodeHasher } from './modules/access/tokens.js';
import { createAuditRepository } from './modules/audit/repository.js';
import { auditRoutes } from './modules/audit/routes.js';
import { createAuditService } from './modules/audit/service.js';
import { createCatalogService } from './modules/catalog/service.js';
import { createHttpMailer, createLogMailer, type Mailer } from './modules/mailer/adapter.js';
import { oauthClientRoutes, oauthScopeRoutes } from './modules/oauth-clients/routes.js';
import { createOAuthClientsService } from './modules/oauth-clients/service.js';
import { createPlatformMappingsRepository } from './modules/platform-mappings/repository.js';
import { createRemoteTasksRepository } from './modules/remote-tasks/repository.js';
import {
  createRemoteTaskRunner,
  DEFAULT_REMOTE_TASK_SETTINGS,
  deactivationHandlers,
  type RemoteTaskRunner,
  type RemoteTaskSettings,
} from './modules/remote-tasks/service.js';
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
import { createLocalDiskStorage } from './modules/storage/adapter.js';
import { createAvatarStore } from './modules/storage/avatars.js';
import { avatarFileRoutes } from './modules/storage/routes.js';
import { createUsersRepository } from './modules/users/repository.js';
import { usersRoutes } from './modules/users/routes.js';
import { createUsersService } from './modules/users/service.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { createWebhooksService } from './modules/webhooks/service.js';
import { createWorkspacesRepository } from './modules/workspaces/repository.js';
import { workspacesRoutes } from './modules/workspaces/routes.js';
import { createWorkspacesService } from './modules/workspaces/service.js';

/** Every repository of the service, on the pool or inside one transaction. */
function repositories(executor: Executor) {
  return {
    users: createUsersRepository(executor),
    sessions: createSessionsRepository(executor),
    workspaces: createWorkspacesRepository(executor),
    platformMappings: createPlatformMappingsRepository(executor),
    sandboxIssuances: createSandboxIssuancesRepository(executor),
    remoteTasks: createRemoteTasksRepository(executor),
    audit: createAuditRepository(executor),
  };
}

/** What tests (and only tests) may change; production uses the defaults. */
export interface WorkspaceOverrides {
  /** The remote task runner's poll interval and retry backoff. */
  remoteTasks?: Partial<RemoteTaskSettings>;
  /** How long after a sandbox issuance began its unrecorded outcome is reconciled. */
  sandboxReconcileAfterMs?: number;
}

function mailerOf(config: WorkspaceConfig, logger: Logger): Mailer {
  return config.mailer.transport === 'http'
    ? createHttpMailer({ url: config.mailer.url, apiKey: config.mailer.apiKey, from: config.mailer.from, logger })
    : createLogMailer({ from: config.mailer.from, logger });
}

/** Assembles workspace-service from its configuration: database, NATS, HTTP routes, outbox relay. */
export async function createWorkspaceService(
  config: WorkspaceConfig,
  logger: Logger,
  overrides: WorkspaceOverrides = {},
): Promise<ServiceHandle> {
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
  const { app, bus } = foundation;
  let remoteTasks: RemoteTaskRunner | undefined;
  if (config.jwtSecretGenerated) {
    logger.warn('JWT_SECRET is not set: using a random secret for this run (APP_ENV=local only); sessions end when the process restarts');
  }

  try {
    await app.register(fastifyJwt, {
      secret: config.jwtSecret,
      sign: { algorithm: 'HS256', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, expiresIn: '1h' },
      verify: { algorithms: ['HS256'], allowedIss: TOKEN_ISSUER, allowedAud: TOKEN_AUDIENCE },
    });
    const tokens = accessTokensFrom(app.jwt);
    const store = createStore(foundation.database.db, repositories);
    const avatars = createAvatarStore({ storage: createLocalDiskStorage(config.WORKSPACE_STORAGE_DIR), logger });
    const workspaceExists = async (id: string) => (await store.repos.workspaces.findById(id)) !== undefined;
    const audit = createAuditService({ store, workspaceExists, userOf: (id) => store.repos.users.findById(id), logger });
    const sessions = createSessionsService({
      store,
      audit,
      tokens,
      mailer: mailerOf(config, logger),
      hashCode: verificationCodeHasher(config.jwtSecret),
      appEnv: config.APP_ENV,
      refreshTokenTtlMs: config.refreshTokenTtlMs,
      logger,
    });
    const users = createUsersService({ store, audit, avatars });
    const catalog = createCatalogService({ workspaceExists });
    // Commands owed to payments and the dispatcher (workspace deletion, sandbox issuances), durable.
    const runner = createRemoteTaskRunner({
      store,
      logger,
      registry: app.metrics,
      settings: { ...DEFAULT_REMOTE_TASK_SETTINGS, ...overrides.remoteTasks },
      handlers: {
        ...deactivationHandlers({ bus }),
        'sandbox.reconcile-issuance': reconcileIssuanceHandler({ bus, logger }),
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

    await registerWorkspaceApi(app, {
      tokens,
      actorFor: sessions.actorFor,
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
        oauthClientRoutes(oauthClients),
        webhookRoutes(webhooks),
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

  const relay = createEventRelay(foundation, SCHEMA_NAME, logger);
  const runner = remoteTasks!;
  return {
    app,
    startWorkers: async () => {
      await relay.start();
      await runner.start();
    },
    closers: [{ name: 'remote tasks', close: runner.stop }, { name: 'outbox relay', close: relay.stop }, ...foundation.baseClosers],
  };
}
