import type { Logger } from '@holdfast/logging';
import { createOutboundPolicy, type Resolver } from '@holdfast/outbound';
import { createSecretBox, keyringFromConfig } from '@holdfast/secrets';
import { createWalletAccountService, type WorkspaceWalletProviderLookup } from './accounts/service.js';
import { createBalanceReader } from './balances/service.js';
import type { AuditSink } from './common/audit.js';
import type { WalletSettings } from './common/settings.js';
import { createContractRegistration, type FollowContract } from './contracts/registration.js';
import { createContractDeploymentRepository } from './contracts/repository.js';
import { createContractDeploymentService } from './contracts/service.js';
import { createCustomerWalletRepository } from './customer/repository.js';
import { type CustomerLookup, createCustomerWalletService } from './customer/service.js';
import { createExternalWalletConfigRepository } from './external/repository.js';
import { type CheckoutSettingsSync, createExternalWalletConfigService } from './external/service.js';
import { createWalletProviderConfigRepository, type Tx } from './provider-configs/repository.js';
import { createWalletProviderConfigService } from './provider-configs/service.js';
import { createPlatformAdapter } from './providers/platform.js';
import { createPlatformWalletRepository, type Db } from './providers/repository.js';

export interface WalletFeatureDeps {
  /** The service's drizzle instance (its own schema). */
  db: Db;
  /** `config.wallets` (resolveWalletSettings). */
  settings: WalletSettings;
  logger: Logger;
  /** The audit log (workspace tenancy), written inside each change's transaction. */
  audit: AuditSink;
  /** `Workspace.walletProvider` (workspace tenancy). */
  workspaceWalletProvider: WorkspaceWalletProviderLookup;
  /** The workspace of a customer (customer accounts). */
  findCustomer: CustomerLookup;
  /** Asks the chain-indexer to follow a dedicated escrow (a NATS command); without it, deployments are not announced. */
  followContract?: FollowContract;
  /** How often unacknowledged deployments are announced again (default 5 s). */
  registrationRetryMs?: number;
  /** Host name resolution of the outbound policy (tests only; default: the system's). */
  outboundResolver?: Resolver;
  /** Tells payments a workspace's external wallet configs changed (a remote task in the change's transaction). */
  checkoutSync?: CheckoutSettingsSync;
}

/**
 * Every wallet feature of workspace-service, assembled from explicit dependencies: what the routes
 * call. service.ts builds this once; the three lookups connect it to workspaces, customers and audit.
 */
export function createWalletFeatures(deps: WalletFeatureDeps) {
  const { db, settings, logger } = deps;
  const secrets = createSecretBox(
    keyringFromConfig({
      DATA_ENCRYPTION_KEY: settings.dataEncryptionKey,
      DATA_ENCRYPTION_KEYS_PREVIOUS: settings.dataEncryptionKeysPrevious,
      APP_ENV: settings.appEnv,
    }),
  );
  // Tenant-set vendor URLs: public addresses only outside local, at save time and on every connection.
  const outbound = createOutboundPolicy({
    appEnv: settings.appEnv,
    connectTimeoutMs: settings.providerTimeoutMs,
    resolver: deps.outboundResolver,
  });
  const vendor = { timeoutMs: settings.providerTimeoutMs, appEnv: settings.appEnv, dispatcher: outbound.dispatcher() };
  const walletProviderConfigs = createWalletProviderConfigService({
    repository: createWalletProviderConfigRepository(db),
    secrets,
    audit: deps.audit,
    appEnv: settings.appEnv,
    vendor,
    outbound,
    logger: logger.child({ feature: 'wallet-provider-configs' }),
  });
  const balances = createBalanceReader({
    chainRpcUrls: settings.chainRpcUrls,
    solanaRpcUrls: settings.solanaRpcUrls,
    tokenContracts: settings.tokenContracts,
    timeoutMs: settings.chainRpcTimeoutMs,
    logger: logger.child({ feature: 'balances' }),
  });
  const platformWallets = createPlatformWalletRepository(db);
  const transaction = <T>(work: (tx: Tx) => Promise<T>): Promise<T> => db.transaction((tx) => work(tx as Tx));
  const contractRepository = createContractDeploymentRepository(db);
  const contractRegistration = deps.followContract
    ? createContractRegistration({
        repository: contractRepository,
        follow: deps.followContract,
        logger,
        retryIntervalMs: deps.registrationRetryMs ?? 5_000,
      })
    : undefined;
  const platform = (workspaceId: string) =>
    createPlatformAdapter({
      workspaceId,
      repository: platformWallets,
      secrets,
      chainRpcUrls: settings.chainRpcUrls,
      rpcTimeoutMs: settings.chainRpcTimeoutMs,
    });
  return {
    walletProviderConfigs,
    externalWalletConfigs: createExternalWalletConfigService({
      repository: createExternalWalletConfigRepository(db),
      secrets,
      audit: deps.audit,
      ...(deps.checkoutSync ? { sync: deps.checkoutSync } : {}),
    }),
    walletAccounts: createWalletAccountService({
      workspaceWalletProvider: deps.workspaceWalletProvider,
      configs: walletProviderConfigs,
      platform,
      balances,
      audit: deps.audit,
      transaction,
    }),
    customerWallets: createCustomerWalletService({
      repository: createCustomerWalletRepository(db),
      findCustomer: deps.findCustomer,
      chainRpcUrls: settings.chainRpcUrls,
      siwe: settings.siwe,
      rpcTimeoutMs: settings.chainRpcTimeoutMs,
      configs: walletProviderConfigs,
      balances,
      audit: deps.audit,
      appEnv: settings.appEnv,
      logger: logger.child({ feature: 'customer-wallets' }),
      workspaceWalletProvider: deps.workspaceWalletProvider,
      platform,
    }),
    contracts: createContractDeploymentService({
      repository: contractRepository,
      chainRpcUrls: settings.chainRpcUrls,
      sharedEscrows: settings.sharedEscrows,
      deployerPrivateKey: settings.deployerPrivateKey,
      deploymentsPerDay: settings.deploymentsPerDay,
      rpcTimeoutMs: Math.max(settings.chainRpcTimeoutMs, 30_000),
      audit: deps.audit,
      logger: logger.child({ feature: 'contracts' }),
      ...(contractRegistration ? { registration: contractRegistration } : {}),
    }),
    /** The outbound policy of vendor calls (closed with the service). */
    outbound,
    /** The retry loop announcing dedicated escrows to the chain-indexer (a worker of the service), when wired. */
    contractRegistration,
    /** The built-in HD wallet of a workspace (signing, sending on the local chain). */
    platform,
    balances,
  };
}
export type WalletFeatures = ReturnType<typeof createWalletFeatures>;
