import type {
  CheckDuplicateQuery,
  ContractNetwork,
  CreateCustodyAWalletBody,
  CreateWalletAccountsBody,
  CreateWalletProviderConfigBody,
  ExternalWalletType,
  LinkWalletBody,
  ListWalletProviderConfigsQuery,
  UpdateWalletProviderConfigBody,
  UpsertExternalWalletConfigBody,
  WalletLinkNonceBody,
} from '@holdfast/contracts';
import { forbidden, notFound, validationError } from '@holdfast/contracts';
import {
  type Actor,
  assertWorkspaceAccess,
  assertWorkspaceAdmin,
  type Caller,
  type CustomerPrincipal,
  isSuperAdmin,
  requireActor,
} from '../access/index.js';
import { actorContextOf, canAccess, workspaceAccessOf } from './common/audit.js';
import type { WalletFeatures } from './features.js';
import type { ConfigAccess } from './provider-configs/service.js';

export interface WalletApiDeps {
  features: WalletFeatures;
  workspaceExists: (id: string) => Promise<boolean>;
  /** The customer of a customer token, if it is valid in the workspace the path names (customers module). */
  customerIn: (caller: Caller, workspaceRef: string) => Promise<CustomerPrincipal>;
}

/** Which wallet provider configs an actor may see (its workspace's and the global ones) and change (global ones: SUPER_ADMIN). */
export function configAccessOf(actor: Actor): ConfigAccess {
  return { workspaces: workspaceAccessOf(actor), manageGlobal: isSuperAdmin(actor) };
}

/**
 * What the wallet routes call: one function per route, checking who may act on which workspace
 * (the role model of access/policy.ts) and that the workspace exists, then calling the wallet
 * features (createWalletFeatures) with the request's caller for the audit trail.
 */
export function createWalletApi(deps: WalletApiDeps) {
  const { features } = deps;

  /** A member of the workspace (any role) or a SUPER_ADMIN; 404 for a workspace that does not exist. */
  async function member(actor: Actor, workspaceId: string): Promise<void> {
    assertWorkspaceAccess(actor, workspaceId);
    if (!(await deps.workspaceExists(workspaceId))) throw notFound('Workspace');
  }

  /** An ADMIN of the workspace or a SUPER_ADMIN; 404 for a workspace that does not exist. */
  async function admin(actor: Actor, workspaceId: string): Promise<void> {
    assertWorkspaceAdmin(actor, workspaceId);
    if (!(await deps.workspaceExists(workspaceId))) throw notFound('Workspace');
  }

  return {
    // ---- wallet provider configs (ADMIN or SUPER_ADMIN; the route checks the role) -----------------

    listProviderConfigs: async (actor: Actor, query: ListWalletProviderConfigsQuery) => {
      const access = configAccessOf(actor);
      if (query.workspaceId && !canAccess(access.workspaces, query.workspaceId)) throw forbidden('Not a member of this workspace');
      return features.walletProviderConfigs.list(query, access);
    },

    createProviderConfig: async (caller: Caller, body: CreateWalletProviderConfigBody) => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, body.workspaceId);
      if (!(await deps.workspaceExists(body.workspaceId))) {
        throw validationError([{ field: 'workspaceId', reason: 'is not an existing workspace' }]);
      }
      return features.walletProviderConfigs.create(body, configAccessOf(actor), actorContextOf(caller));
    },

    getProviderConfig: async (actor: Actor, id: string) => features.walletProviderConfigs.get(id, configAccessOf(actor)),

    updateProviderConfig: async (caller: Caller, id: string, body: UpdateWalletProviderConfigBody) =>
      features.walletProviderConfigs.update(id, body, configAccessOf(requireActor(caller)), actorContextOf(caller)),

    deleteProviderConfig: async (caller: Caller, id: string) =>
      features.walletProviderConfigs.remove(id, configAccessOf(requireActor(caller)), actorContextOf(caller)),

    setDefaultProviderConfig: async (caller: Caller, id: string) =>
      features.walletProviderConfigs.setDefault(id, configAccessOf(requireActor(caller)), actorContextOf(caller)),

    testProviderConnection: async (actor: Actor, id: string) => features.walletProviderConfigs.testConnection(id, configAccessOf(actor)),

    checkDuplicateProviderConfig: async (actor: Actor, query: CheckDuplicateQuery) =>
      features.walletProviderConfigs.checkDuplicate(query, configAccessOf(actor)),

    /** The service-to-service listing (X-Internal-API-Key, checked by the authentication hook). */
    providerConfigStatus: async (query: { workspaceId?: string | undefined }) => features.walletProviderConfigs.status(query),

    // ---- external wallet configs (workspace access) -------------------------------------------

    listExternalConfigs: async (actor: Actor, workspaceId: string) => {
      await member(actor, workspaceId);
      return features.externalWalletConfigs.list(workspaceId);
    },

    getExternalConfig: async (actor: Actor, workspaceId: string, type: ExternalWalletType) => {
      await member(actor, workspaceId);
      return features.externalWalletConfigs.get(workspaceId, type);
    },

    upsertExternalConfig: async (caller: Caller, workspaceId: string, type: ExternalWalletType, body: UpsertExternalWalletConfigBody) => {
      await member(requireActor(caller), workspaceId);
      return features.externalWalletConfigs.upsert(workspaceId, type, body, actorContextOf(caller));
    },

    deleteExternalConfig: async (caller: Caller, workspaceId: string, type: ExternalWalletType) => {
      await member(requireActor(caller), workspaceId);
      return features.externalWalletConfigs.remove(workspaceId, type, actorContextOf(caller));
    },

    // ---- wallet accounts and balances ---------------------------------------------------------

    listAccounts: async (actor: Actor, workspaceId: string) => {
      await member(actor, workspaceId);
      return features.walletAccounts.listAccounts(workspaceId);
    },

    createAccounts: async (caller: Caller, workspaceId: string, body: CreateWalletAccountsBody) => {
      await admin(requireActor(caller), workspaceId);
      return features.walletAccounts.createAccounts(workspaceId, body, actorContextOf(caller));
    },

    balances: async (actor: Actor, workspaceId: string) => {
      await member(actor, workspaceId);
      return features.walletAccounts.getBalances(workspaceId);
    },

    // ---- escrow contracts ---------------------------------------------------------------------

    listContracts: async (actor: Actor, workspaceId: string) => {
      await member(actor, workspaceId);
      return features.contracts.list(workspaceId);
    },

    contractFor: async (actor: Actor, workspaceId: string, network: ContractNetwork) => {
      await member(actor, workspaceId);
      return features.contracts.getForNetwork(workspaceId, network);
    },

    deployContract: async (caller: Caller, workspaceId: string, network: ContractNetwork) => {
      await admin(requireActor(caller), workspaceId);
      return features.contracts.deploy(workspaceId, network, actorContextOf(caller));
    },

    deprecateContract: async (caller: Caller, workspaceId: string, deploymentId: string) => {
      await admin(requireActor(caller), workspaceId);
      return features.contracts.deprecate(workspaceId, deploymentId, actorContextOf(caller));
    },

    // ---- a customer's CUSTODY_A wallet (administrators) ----------------------------------------

    custodyAWallet: async (actor: Actor, customerId: string) =>
      features.customerWallets.getCustodyAWallet(customerId, workspaceAccessOf(actor)),

    createCustodyAWallet: async (caller: Caller, customerId: string, body: CreateCustodyAWalletBody) =>
      features.customerWallets.createCustodyAWallet(customerId, body, workspaceAccessOf(requireActor(caller)), actorContextOf(caller)),

    custodyAWalletBalance: async (actor: Actor, customerId: string) =>
      features.customerWallets.getCustodyAWalletBalance(customerId, workspaceAccessOf(actor)),

    // ---- the customer's own wallet (customer token) -------------------------------------------

    walletNonce: async (caller: Caller, workspaceRef: string, body: WalletLinkNonceBody) => {
      const customer = await deps.customerIn(caller, workspaceRef);
      return features.customerWallets.issueNonce(customer.workspaceId, customer.id, body);
    },

    linkWallet: async (caller: Caller, workspaceRef: string, body: LinkWalletBody) => {
      const customer = await deps.customerIn(caller, workspaceRef);
      return features.customerWallets.linkWallet(customer.workspaceId, customer.id, body, actorContextOf(caller));
    },

    customerWalletBalances: async (caller: Caller, workspaceRef: string) => {
      const customer = await deps.customerIn(caller, workspaceRef);
      return features.customerWallets.getWalletBalances(customer.workspaceId, customer.id);
    },
  };
}
export type WalletApi = ReturnType<typeof createWalletApi>;
