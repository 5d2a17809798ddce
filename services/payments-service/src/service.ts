import { fileURLToPath } from 'node:url';
import { ChainEvent, CONSUMERS, INDEXER_COMMANDS, type Network, STREAMS } from '@holdfast/contracts';
import type { ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import {
  DEFAULT_REMOTE_TASK_SETTINGS,
  NonRetryableError,
  publishEvent,
  type RemoteTaskSettings,
  type RunningConsumer,
  sendCommand,
  startConsumer,
} from '@holdfast/messaging';
import { createFoundation, createOutboxRelay, createRetentionSweeper, createRowWaiter } from '@holdfast/runtime';
import { createSecretBox } from '@holdfast/secrets';
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
import { batchRoutes } from './modules/batches/routes.js';
import { createBatchesService } from './modules/batches/service.js';
import { serveCheckoutCommands } from './modules/checkout/commands.js';
import { pageAssetsFrom } from './modules/checkout/page-assets.js';
import { createCheckoutRepository } from './modules/checkout/repository.js';
import { checkoutPageRoutes, checkoutRoutes } from './modules/checkout/routes.js';
import { checkoutCompletion, createCheckoutService } from './modules/checkout/service.js';
import { createCheckoutExpiryWorker } from './modules/checkout/worker.js';
import { createHttpIdentityProvider, createLocalIdentityProvider } from './modules/compliance/identity-provider.js';
import { createComplianceRepository } from './modules/compliance/repository.js';
import { complianceRoutes } from './modules/compliance/routes.js';
import { createComplianceService } from './modules/compliance/service.js';
import { createCodeDeliveryWorker } from './modules/controls/delivery.js';
import { createControlsRepository } from './modules/controls/repository.js';
import { controlsRoutes } from './modules/controls/routes.js';
import { createControlsService } from './modules/controls/service.js';
import { smsGatewayFor } from './modules/controls/sms.js';
import { createDisputesRepository } from './modules/disputes/repository.js';
import { disputeRoutes } from './modules/disputes/routes.js';
import { createDisputesService } from './modules/disputes/service.js';
import { eventStreamRoutes } from './modules/event-stream/routes.js';
import { createEventStreamService } from './modules/event-stream/service.js';
import { createIdempotencyRepository, registerIdempotency } from './modules/idempotency/index.js';
import { createOAuthRepository } from './modules/oauth/repository.js';
import { oauthRoutes } from './modules/oauth/routes.js';
import { createOAuthService } from './modules/oauth/service.js';
import { createPlatformsRepository } from './modules/platforms/repository.js';
import { platformRoutes } from './modules/platforms/routes.js';
import { createPlatformsService } from './modules/platforms/service.js';
import { createQuotesRepository } from './modules/quotes/repository.js';
import { quoteRoutes } from './modules/quotes/routes.js';
import { createQuotesService } from './modules/quotes/service.js';
import { createReconciliationRepository } from './modules/reconciliation/repository.js';
import { reconciliationRoutes } from './modules/reconciliation/routes.js';
import { createReconciler, createReconciliationService } from './modules/reconciliation/service.js';
import { createRelayerChain } from './modules/relayer/chain.js';
import { registerRelayerMetrics } from './modules/relayer/metrics.js';
import { createRelayerRepository, RELAY_SETTLED_CHANNEL } from './modules/relayer/repository.js';
import { relayerRoutes } from './modules/relayer/routes.js';
import { createRelayerService, type RelayerService } from './modules/relayer/service.js';
import { createRelayerWorker } from './modules/relayer/worker.js';
import { createRemoteTasksRepository } from './modules/remote-tasks/repository.js';
import { createRemoteTaskRunner, remoteTaskHandlers } from './modules/remote-tasks/service.js';
import { createPaymentsRetentionRepository } from './modules/retention/repository.js';
import { createChainAccess } from './modules/settlement/chain.js';
import { createSettlementChainConsumer } from './modules/settlement/chain-consumer.js';
import { registerSettlementMetrics } from './modules/settlement/metrics.js';
import { createSettlementOperations } from './modules/settlement/operations.js';
import { createSettlementReceiptChecks } from './modules/settlement/receipts.js';
import { createSettlementRepository } from './modules/settlement/repository.js';
import { settlementRoutes } from './modules/settlement/routes.js';
import { createSettlementWorker } from './modules/settlement/worker.js';
import { createSettlementReviewRepository } from './modules/settlement-review/repository.js';
import { settlementReviewRoutes } from './modules/settlement-review/routes.js';
import { createSettlementReviewService } from './modules/settlement-review/service.js';
import { testClockRoutes } from './modules/test-clock/routes.js';
import { createTestClockService } from './modules/test-clock/service.js';
import { registerTransactionMetrics } from './modules/transactions/metrics.js';
import { createTransactionMoves } from './modules/transactions/moves.js';
import { createTransactionsRepository } from './modules/transactions/repository.js';
import { transactionRoutes } from './modules/transactions/routes.js';
import { createSenderLimits } from './modules/transactions/sender-limits.js';
import { createTransactionsService } from './modules/transactions/service.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { createWebhooksService } from './modules/webhooks/service.js';
import { serveWorkspaceAccessCommands } from './modules/workspace-access/commands.js';
import { createWorkspaceAccessService } from './modules/workspace-access/service.js';
import { serveWorkspaceTransactionCommands } from './modules/workspace-transactions/commands.js';
import { createWorkspaceTransactionsRepository } from './modules/workspace-transactions/repository.js';
import { createWorkspaceTransactionsService, forwardedCreateBody } from './modules/workspace-transactions/service.js';
import { x402Routes } from './modules/x402/routes.js';
import { createX402Service } from './modules/x402/service.js';

/** What tests may tune beyond the configuration. */
export interface PaymentsOverrides {
  /** Retry timing of the commands owed to other processes (tests make them fast). */
  remoteTasks?: Partial<RemoteTaskSettings>;
}

/** Assembles payments-service from its configuration: database, NATS, HTTP routes, outbox relay. */
export async function createPaymentsService(
  config: PaymentsConfig,
  logger: Logger,
  overrides: PaymentsOverrides = {},
): Promise<ServiceHandle> {
  // The relayer's networks are known from the configuration: each gets a readiness check of its balance.
  const relayerNetworks = Object.keys(config.chainRpcUrls).filter((n) => config.relayer.keys[n] ?? config.relayer.defaultKey);
  let relayer: RelayerService | undefined;
  const foundation = await createFoundation({
    serviceName: SERVICE_NAME,
    schemaName: SCHEMA_NAME,
    tables,
    config,
    logger,
    chainRpcUrls: config.chainRpcUrls,
    readiness: relayerNetworks.map((network) => ({ name: `relayer:${network}`, check: async () => relayer?.checkFunded(network) })),
    http: {
      apiVersion: (url) => (url.startsWith('/api/v1') ? 'v1' : 'v2'),
      openapi: openApiInfo,
      deprecations: [v1Deprecation(config.v1SunsetEnforced)],
      bodyLimit: config.HTTP_BODY_LIMIT,
      rateLimitsPerMinute: config.rateLimitsPerMinute,
      redisUrl: config.REDIS_URL,
      trustProxy: config.trustProxy,
      credentialOf: rateLimitCredentialOf,
    },
  });
  const { app, bus, database } = foundation;

  // Access: credential verification (cache + invalidation feed), platforms and keys, OAuth.
  const cache = createCredentialCache();
  const authRepository = createAuthRepository(database.sql);
  const feed = createInvalidationFeed({ repository: authRepository, cache, bus, logger });
  const authenticator = createAuthenticator({ repository: authRepository, cache, feed, appEnv: config.APP_ENV });
  registerAuth(app, authenticator);
  const idempotency = registerIdempotency(app, { repository: createIdempotencyRepository(database.sql), logger });

  // Commands owed to other processes, sent until answered (ADR 15): a deactivated platform's webhooks.
  const remoteTasksRepository = createRemoteTasksRepository();
  const remoteTasks = createRemoteTaskRunner({
    sql: database.sql,
    repository: remoteTasksRepository,
    handlers: remoteTaskHandlers({ bus }),
    logger,
    registry: app.metrics,
    settings: { ...DEFAULT_REMOTE_TASK_SETTINGS, ...overrides.remoteTasks },
  });

  const platformsRepository = createPlatformsRepository(database.sql);
  const platforms = createPlatformsService({
    repository: platformsRepository,
    feed,
    appEnv: config.APP_ENV,
    remoteTasks: { enqueue: remoteTasksRepository.enqueue, wake: remoteTasks.wake },
  });
  const oauthRepository = createOAuthRepository(database.sql);
  const oauth = createOAuthService({ repository: oauthRepository, platforms: platformsRepository, feed });
  const workspaceAccess = createWorkspaceAccessService({ platformsRepository, platforms, oauthRepository, oauth, feed });

  await app.register(platformRoutes(platforms));
  await app.register(oauthRoutes(oauth, { publicUrl: config.publicUrl }));
  await app.register(webhookRoutes(createWebhooksService({ bus }), { workspaceApiUrl: config.workspaceApiUrl }));

  // Compliance verifications: the identity provider's API (the local stand-in when unset in local).
  const { identityProvider } = config;
  const provider =
    identityProvider.url && identityProvider.apiKey
      ? createHttpIdentityProvider({ url: identityProvider.url, apiKey: identityProvider.apiKey, timeoutMs: identityProvider.timeoutMs })
      : createLocalIdentityProvider();
  await app.register(
    complianceRoutes(
      createComplianceService({
        repository: createComplianceRepository(database.sql),
        provider,
        webhookSecret: identityProvider.webhookSecret,
      }),
    ),
  );

  // Every status change of a transaction goes through these moves (state machine + outbox). A
  // checkout session whose transaction becomes escrowed completes in the move's own database
  // transaction (the hook, modules/checkout).
  const transactionsRepository = createTransactionsRepository();
  const checkoutRepository = createCheckoutRepository(database.sql);
  const moves = createTransactionMoves({ repository: transactionsRepository, onMoved: [checkoutCompletion(checkoutRepository)] });

  // Controls: templates, one-time codes (SMS gateway adapters; the local one logs the code), risk reviews.
  // `controls.gate` is the ControlsGate transaction creation takes (`controls: ControlsGate`).
  const smsDeps = { appEnv: config.APP_ENV, logger };
  const gateways = {
    two_factor: smsGatewayFor(config.sms.gateway, {
      ...smsDeps,
      provider: 'sms-gateway',
      localProvider: 'local-log',
      setting: 'SMS_GATEWAY_URL',
    }),
    vendor_sms: smsGatewayFor(config.sms.vendor, {
      ...smsDeps,
      provider: 'sms-vendor',
      localProvider: 'local-vendor-log',
      setting: 'SMS_VENDOR_URL',
    }),
  };
  const codeBox = config.codeKeyring ? createSecretBox(config.codeKeyring) : null;
  const controlsRepository = createControlsRepository(database.sql);
  const controls = createControlsService({
    repository: controlsRepository,
    transactions: transactionsRepository,
    moves,
    sms: gateways.two_factor,
    vendorSms: gateways.vendor_sms,
    codeTtlMs: config.controlsCodeTtlMs,
    maxAttempts: config.CONTROLS_CODE_MAX_ATTEMPTS,
    box: codeBox,
  });
  // The codes outbox: one-time codes go out after the transaction that made them committed.
  const codeDelivery = codeBox
    ? createCodeDeliveryWorker({
        sql: database.sql,
        repository: controlsRepository,
        box: codeBox,
        gateways,
        logger,
        pollIntervalMs: config.codeDeliveryIntervalMs,
      })
    : null;
  await app.register(controlsRoutes(controls));

  // Settlement: the on-chain operations, the CHAIN consumer and the attester's worker (docs/settlement.md).
  const chain = createChainAccess(
    { appEnv: config.APP_ENV, rpcUrls: config.chainRpcUrls, ...config.settlement },
    {
      lookupContract: (network, address) =>
        sendCommand(bus, INDEXER_COMMANDS.lookupContract, { network: network as Network, address }, { timeoutMs: 5_000 }),
    },
  );
  const settlementRepository = createSettlementRepository();
  // The operations and the CHAIN consumer check the chain alike and move transactions alike.
  const settlementParts = {
    sql: database.sql,
    moves,
    transactions: transactionsRepository,
    repository: settlementRepository,
    chain,
    receipts: createSettlementReceiptChecks({ chain }),
    logger,
  };
  const settlement = createSettlementOperations({ ...settlementParts, checkRelease: controls.checkRelease });
  const chainEvents = createSettlementChainConsumer(settlementParts);
  await app.register(settlementRoutes(settlement));
  // The test clock: a sandbox or local platform ends its own transaction's hold (docs/test-clock.md).
  await app.register(
    testClockRoutes(
      createTestClockService({
        sql: database.sql,
        appEnv: config.APP_ENV,
        transactions: transactionsRepository,
        releaseDueNow: (tx, transactionId) => settlementRepository.releaseDueNow(tx, transactionId),
        chain,
        logger,
      }),
    ),
  );

  // The relayer: one-signature funding, the payer signs and the relayer key pays the gas (docs/checkout.md).
  const relayerChain = createRelayerChain(chain, config.relayer, relayerNetworks);
  const relayerRepository = createRelayerRepository();
  const relaySettled = createRowWaiter(database.sql, RELAY_SETTLED_CHANNEL);
  let wakeRelayer = () => {};
  relayer = createRelayerService({
    sql: database.sql,
    transactions: transactionsRepository,
    repository: relayerRepository,
    chain,
    relayerChain,
    settings: config.relayer,
    logger,
    wake: () => wakeRelayer(),
  });
  await app.register(relayerRoutes(relayer));
  registerRelayerMetrics({
    registry: app.metrics,
    sql: database.sql,
    repository: relayerRepository,
    relayerChain,
    minBalanceWei: config.relayer.minBalanceWei,
  });
  registerTransactionMetrics({ registry: app.metrics, sql: database.sql, transactions: transactionsRepository });
  // The reconciler: the books against the escrow contract (docs/settlement.md, Reconciliation).
  const reconciliation = createReconciliationService({
    sql: database.sql,
    repository: createReconciliationRepository(),
    transactions: transactionsRepository,
    moves,
    chain,
    logger,
    registry: app.metrics,
    ...config.reconciliation,
  });
  await app.register(reconciliationRoutes(reconciliation));
  const reconciler = createReconciler(reconciliation, logger, config.reconciliation.everyMs);

  // The operator's desk: settlement items that need a person (admin scope).
  await app.register(
    settlementReviewRoutes(
      createSettlementReviewService({ sql: database.sql, repository: createSettlementReviewRepository(), moves, logger }),
    ),
  );
  const settlementWorker = createSettlementWorker({
    sql: database.sql,
    repository: settlementRepository,
    transactions: transactionsRepository,
    chain,
    logger,
    pollIntervalMs: config.settlement.pollIntervalMs,
  });
  const relayerWorker = createRelayerWorker({
    sql: database.sql,
    repository: relayerRepository,
    chain,
    relayerChain,
    settlement,
    logger,
    pollIntervalMs: config.relayer.pollIntervalMs,
    stuckAfterMs: config.relayer.stuckAfterMs,
    onApplied: () => relay.wake(),
  });
  wakeRelayer = relayerWorker.wake;
  let chainConsumer: RunningConsumer | undefined;
  const metrics = registerSettlementMetrics({
    registry: app.metrics,
    sql: database.sql,
    settlements: settlementRepository,
  });

  // Disputes: open, escalate, evidence, resolve; moves the disputed transaction.
  await app.register(
    disputeRoutes(
      createDisputesService({
        sql: database.sql,
        repository: createDisputesRepository(),
        transactions: transactionsRepository,
        moves,
        settle: (tx, input) => settlement.enqueueSettlement(tx, input),
      }),
      idempotency,
    ),
  );

  // Transactions: creation (the controls gate, quotes, idempotency), reads.
  const quotes = createQuotesService({
    repository: createQuotesRepository(database.sql),
    sql: database.sql,
    appEnv: config.APP_ENV,
    ttlSeconds: config.PAYMENTS_QUOTE_TTL_SECONDS,
  });
  const senderLimits = {
    perSender: config.TX_RATE_LIMIT_PER_SENDER,
    duplicateWindowSeconds: config.PAYMENTS_DUPLICATE_WINDOW_SECONDS,
  };
  const checkSender = createSenderLimits(transactionsRepository, senderLimits);
  const relay = createOutboxRelay({
    sql: database.sql,
    schemaName: SCHEMA_NAME,
    logger,
    publish: async (event) => {
      await publishEvent(bus, event);
    },
  });
  const transactions = createTransactionsService({
    sql: database.sql,
    repository: transactionsRepository,
    moves,
    controls: controls.gate,
    quotes,
    appEnv: config.APP_ENV,
    holdPeriodSeconds: config.PAYMENTS_HOLD_PERIOD_SECONDS,
    senderLimits,
    groupCommit: { maxBatch: config.PAYMENTS_CREATION_GROUP_MAX, waitMs: config.PAYMENTS_CREATION_GROUP_WAIT_MS },
    wakeRelay: relay.wake,
    escrowTerms: chain.escrowTerms,
  });
  await app.register(transactionRoutes(transactions));
  await app.register(quoteRoutes(quotes));

  // Checkout sessions (docs/checkout.md): the payer's transaction is created through transactions.create.
  const checkout = createCheckoutService({
    sql: database.sql,
    repository: checkoutRepository,
    appEnv: config.APP_ENV,
    controls: controls.gate,
    // A sandbox platform's payer gets a transaction on a test network only, as every creation (sandbox_mainnet).
    createTransaction: async (owner, body) => {
      const platform = await platformsRepository.get(owner.platformId);
      return (await transactions.create({ ...owner, sandbox: platform?.sandbox ?? false }, body)).transaction;
    },
    wakeRelay: relay.wake,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    relayer,
    platformName: async (platformId) => (await platformsRepository.get(platformId))?.name,
    chainId: (network) => chain.chainId(network),
  });
  await app.register(checkoutRoutes(checkout));
  // x402 facilitator (docs/x402.md): verify and settle on the relayer; a payment is a transaction of the platform.
  await app.register(
    x402Routes(
      createX402Service({
        sql: database.sql,
        relayer,
        relayerChain,
        chain,
        transactions: transactionsRepository,
        createTransaction: async (principal, body) => (await transactions.create(principal, body)).transaction,
        checkout,
        sessionPlatform: async (sessionId) => (await checkoutRepository.get(database.sql, sessionId))?.platformId,
        settleWaitMs: config.x402SettleWaitMs,
        relaySettled,
        ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
        logger,
      }),
    ),
  );

  // The hosted payer page, built by scripts/bundle-page.ts into page-build/ (one level above src/, dist/ and bundle/ alike).
  await app.register(checkoutPageRoutes(pageAssetsFrom(fileURLToPath(new URL('../page-build/', import.meta.url))), checkout));
  const checkoutExpiry = createCheckoutExpiryWorker({ service: checkout, logger, intervalMs: config.checkoutExpiryIntervalMs });

  // Batches: one sender, many legs, created atomically.
  await app.register(
    batchRoutes(
      createBatchesService({
        repository: createBatchesRepository(database.sql),
        appEnv: config.APP_ENV,
        maxLegs: config.PAYMENTS_MAX_BATCH_LEGS,
        checkSender,
        controls: controls.gate,
        escrowTerms: chain.escrowTerms,
        holdPeriodSeconds: config.PAYMENTS_HOLD_PERIOD_SECONDS,
      }),
    ),
  );

  // The Workspace API's transaction reads, key checks and forwarded create / submit-escrow-hash.
  const workspaceTransactions = createWorkspaceTransactionsService({
    repository: createWorkspaceTransactionsRepository(database.sql),
    authenticator,
    operations: {
      create: async (platformId, input) => {
        const platform = await platformsRepository.get(platformId);
        const owner = { platformId, workspaceId: platform?.workspaceId ?? null, sandbox: platform?.sandbox ?? false };
        return (await transactions.create(owner, forwardedCreateBody(input))).transaction;
      },
      submitEscrowHash: async (platformId, transactionId, transactionHash) =>
        (await settlement.submitEscrowHash({ platformId }, transactionId, { transactionHash })).transaction,
    },
    appEnv: config.APP_ENV,
  });

  // The platform's events live (server-sent events, resumable), read from the EVENTS stream.
  await app.register(eventStreamRoutes(createEventStreamService({ bus }), { heartbeatMs: config.eventStreamHeartbeatMs }));

  if (config.PAYMENTS_BOOTSTRAP_API_KEY) await platforms.ensureBootstrap(config.PAYMENTS_BOOTSTRAP_API_KEY);

  const retentionRepository = createPaymentsRetentionRepository(database.sql);
  const retention = createRetentionSweeper({
    logger,
    everyMs: config.retention.everyMs,
    sweep: () => retentionRepository.sweep(config.retention.horizons),
  });
  let stopCommands = () => {};
  let stopTransactionCommands = () => {};
  let stopCheckoutCommands = () => {};

  return {
    app,
    startWorkers: async () => {
      await feed.start();
      await relaySettled.start();
      stopCommands = serveWorkspaceAccessCommands(bus, SERVICE_NAME, workspaceAccess, oauth);
      stopTransactionCommands = serveWorkspaceTransactionCommands(bus, SERVICE_NAME, workspaceTransactions);
      stopCheckoutCommands = serveCheckoutCommands(bus, SERVICE_NAME, checkout);
      await relay.start();
      await remoteTasks.start();
      chainConsumer = await startConsumer({
        bus,
        stream: STREAMS.CHAIN.name,
        durable: CONSUMERS.paymentsChain,
        filterSubject: STREAMS.CHAIN.subjects[0],
        schema: ChainEvent,
        logger,
        concurrency: 1,
        handler: async (event) => {
          try {
            const outcome = await chainEvents.handleChainEvent(event);
            // The move's event is committed: out now, not when the NOTIFY comes back through PostgreSQL.
            if (outcome !== 'duplicate') relay.wake();
            metrics.chainEventHandled(event.kind, outcome);
          } catch (error) {
            if (error instanceof NonRetryableError) metrics.chainEventHandled(event.kind, 'rejected');
            throw error;
          }
        },
      });
      if (chain.attesterAddress()) await settlementWorker.start();
      if (relayerChain.networks().length > 0) await relayerWorker.start();
      await codeDelivery?.start();
      await reconciler.start();
      await retention.start();
      await checkoutExpiry.start();
    },
    closers: [
      { name: 'commands', close: async () => stopCommands() },
      { name: 'chain consumer', close: async () => chainConsumer?.stop() },
      { name: 'settlement worker', close: settlementWorker.stop },
      { name: 'relayer worker', close: relayerWorker.stop },
      { name: 'reconciler', close: reconciler.stop },
      { name: 'checkout expiry worker', close: checkoutExpiry.stop },
      { name: 'code delivery worker', close: async () => codeDelivery?.stop() },
      { name: 'retention sweeper', close: retention.stop },
      { name: 'transaction commands', close: async () => stopTransactionCommands() },
      { name: 'checkout commands', close: async () => stopCheckoutCommands() },
      { name: 'remote tasks', close: remoteTasks.stop },
      { name: 'credential invalidation feed', close: feed.stop },
      { name: 'outbox relay', close: relay.stop },
      { name: 'relay outcome listener', close: relaySettled.stop },
      ...foundation.baseClosers,
    ],
  };
}
