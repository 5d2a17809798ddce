import {
  AppError,
  type CreateWorkspaceTransactionBody,
  type GlobalTransactionList,
  type GlobalTransactionsQuery,
  notFound,
  paginationMeta,
  paymentsStatusesOf,
  type SubmitEscrowHashResult,
  type TransactionFilters,
  toWorkspaceTransaction,
  WORKSPACE_TRANSACTION_COMMANDS,
  type WorkspaceKeyPrincipal,
  type WorkspaceSubmitEscrowHashBody,
  type WorkspaceTransaction,
  type WorkspaceTransactionList,
  type WorkspaceTransactionStats,
  type WorkspaceTransactionsQuery,
} from '@holdfast/contracts';
import { type Bus, sendCommand } from '@holdfast/messaging';
import type { Store } from '../../db/store.js';
import { type Actor, assertWorkspaceAccess, type Caller, isSuperAdmin, requireActor, requireWorkspaceKey } from '../access/index.js';
import { AUDIT, type AuditService } from '../audit/index.js';
import type { WorkspacesRepository } from '../workspaces/index.js';
import type { TransactionScopeRepository } from './repository.js';

const C = WORKSPACE_TRANSACTION_COMMANDS;

interface Scope {
  /** Named in every command: payments checks each platform is one of theirs. */
  workspaceIds: [string] | 'all';
  platformIds: string[];
  addresses: string[];
}

/** The upper-case filter -> payments' statuses, and the other filters as they are. */
function filtersOf(q: { status?: WorkspaceTransactionsQuery['status'] } & Omit<TransactionFilters, 'statuses'>): TransactionFilters {
  const { status, ...rest } = q;
  const filters: TransactionFilters = {};
  if (status) filters.statuses = paymentsStatusesOf(status);
  for (const key of ['dateFrom', 'dateTo', 'fromAddress', 'toAddress', 'walletAddress'] as const) {
    if (rest[key] !== undefined) filters[key] = rest[key];
  }
  return filters;
}

/**
 * Workspace API transactions (docs/workspace-transactions.md): payments owns them; this service
 * decides where a workspace's transactions are (its platform mappings and proven addresses), asks
 * payments over NATS and shows the answers with upper-case statuses and `_platformId/_platformName`.
 */
export function createTransactionsService(deps: {
  store: Store<{ workspaces: WorkspacesRepository; transactionScope: TransactionScopeRepository }>;
  audit: AuditService;
  bus: Bus;
}) {
  const { store, audit, bus } = deps;
  const repos = store.repos;
  const opts = (caller: Caller) => ({ requestId: caller.requestId });

  async function accessible(actor: Actor, workspaceId: string): Promise<void> {
    assertWorkspaceAccess(actor, workspaceId);
    if (!(await repos.workspaces.findById(workspaceId))) throw notFound('Workspace');
  }

  /** The workspace's platforms and the addresses it has proven control of. */
  async function workspaceScope(workspaceId: string): Promise<Scope> {
    const [platformIds, addresses] = await Promise.all([
      repos.transactionScope.platformIdsOf([workspaceId]),
      repos.transactionScope.provenAddressesOf(workspaceId),
    ]);
    return { workspaceIds: [workspaceId], platformIds, addresses };
  }

  /** Global routes: SUPER_ADMIN every connected platform; anyone else those of its own workspace. */
  async function globalScope(actor: Actor): Promise<Scope> {
    if (isSuperAdmin(actor)) return { workspaceIds: 'all', platformIds: await repos.transactionScope.platformIdsOf('all'), addresses: [] };
    if (!actor.workspaceId) return { workspaceIds: 'all', platformIds: [], addresses: [] };
    return {
      workspaceIds: [actor.workspaceId],
      platformIds: await repos.transactionScope.platformIdsOf([actor.workspaceId]),
      addresses: [],
    };
  }

  /** The key must be one of this workspace's (another's answers 404, as if the workspace did not exist) and hold the scope. */
  function keyFor(caller: Caller, workspaceId: string, scope: 'read:transactions' | 'write:transactions'): WorkspaceKeyPrincipal {
    const key = requireWorkspaceKey(caller);
    if (key.workspaceId !== workspaceId) throw notFound('Workspace');
    if (!key.scopes.includes(scope)) {
      throw new AppError('INSUFFICIENT_SCOPE', `This API key lacks the ${scope} scope`, { required: [scope] });
    }
    return key;
  }

  return {
    verifyKey: (apiKey: string): Promise<WorkspaceKeyPrincipal> => sendCommand(bus, C.verifyKey, { apiKey }),

    list: async (caller: Caller, workspaceId: string, query: WorkspaceTransactionsQuery): Promise<WorkspaceTransactionList> => {
      await accessible(requireActor(caller), workspaceId);
      const { page, limit, ...filters } = query;
      const scope = await workspaceScope(workspaceId);
      const { transactions, total } = await sendCommand(bus, C.list, { ...scope, filters: filtersOf(filters), page, limit }, opts(caller));
      const { totalPages } = paginationMeta(page, limit, total);
      return { transactions: transactions.map(toWorkspaceTransaction), pagination: { total, page, limit, totalPages } };
    },

    create: async (
      caller: Caller,
      workspaceId: string,
      body: CreateWorkspaceTransactionBody,
    ): Promise<{ transaction: WorkspaceTransaction }> => {
      await accessible(requireActor(caller), workspaceId);
      if (body.customerId && !(await repos.transactionScope.customerInWorkspace(workspaceId, body.customerId))) {
        throw notFound('Customer');
      }
      const platformId = await repos.transactionScope.defaultPlatformOf(workspaceId);
      if (!platformId) {
        throw new AppError('CONFLICT', 'The workspace has no active platform: issue sandbox credentials first', { workspaceId });
      }
      const { network, ...rest } = body;
      const created = toWorkspaceTransaction(
        await sendCommand(bus, C.create, { workspaceId, platformId, transaction: { ...rest, blockchainNetwork: network } }, opts(caller)),
      );
      await audit.recordRemote(caller, AUDIT.transactionCreate, {
        resourceId: created.id,
        workspaceId,
        details: `Created transaction ${created.id} of ${created.amount} ${created.currency} on ${created.blockchainNetwork}`,
        metadata: { platformId },
      });
      return { transaction: created };
    },

    getWithKey: async (caller: Caller, workspaceId: string, transactionId: string): Promise<WorkspaceTransaction> => {
      keyFor(caller, workspaceId, 'read:transactions');
      const scope = await workspaceScope(workspaceId);
      return toWorkspaceTransaction(await sendCommand(bus, C.get, { ...scope, transactionId }, opts(caller)));
    },

    /** Only a transaction on one of the workspace's platforms (not one merely involving its addresses) can be moved. */
    submitEscrowHash: async (
      caller: Caller,
      workspaceId: string,
      transactionId: string,
      body: WorkspaceSubmitEscrowHashBody,
    ): Promise<SubmitEscrowHashResult> => {
      keyFor(caller, workspaceId, 'write:transactions');
      const platformIds = await repos.transactionScope.platformIdsOf([workspaceId]);
      const found = await sendCommand(bus, C.get, { workspaceIds: [workspaceId], platformIds, addresses: [], transactionId }, opts(caller));
      const moved = toWorkspaceTransaction(
        await sendCommand(
          bus,
          C.submitEscrowHash,
          { workspaceId, platformId: found.platformId, transactionId, transactionHash: body.transactionHash },
          opts(caller),
        ),
      );
      await audit.recordRemote(caller, AUDIT.transactionSubmitEscrowHash, {
        resourceId: transactionId,
        workspaceId,
        details: `Submitted escrow hash ${body.transactionHash} for transaction ${transactionId}`,
        metadata: { platformId: found.platformId, keyPlatformId: caller.workspaceKey?.platformId },
      });
      return { success: true, message: 'Escrow transaction hash submitted', transaction: moved };
    },

    globalList: async (caller: Caller, query: GlobalTransactionsQuery): Promise<GlobalTransactionList> => {
      const actor = requireActor(caller);
      const { page, limit, ...filters } = query;
      const scope = await globalScope(actor);
      const { transactions, total } =
        scope.platformIds.length === 0
          ? { transactions: [], total: 0 }
          : await sendCommand(bus, C.list, { ...scope, filters: filtersOf(filters), page, limit }, opts(caller));
      const { totalPages } = paginationMeta(page, limit, total);
      return {
        data: transactions.map(toWorkspaceTransaction),
        meta: { total, page, limit, totalPages, platformCount: scope.platformIds.length },
      };
    },

    globalGet: async (caller: Caller, transactionId: string): Promise<WorkspaceTransaction> => {
      const scope = await globalScope(requireActor(caller));
      if (scope.platformIds.length === 0) throw notFound('Transaction');
      return toWorkspaceTransaction(await sendCommand(bus, C.get, { ...scope, transactionId }, opts(caller)));
    },

    stats: async (caller: Caller): Promise<WorkspaceTransactionStats> => {
      const scope = await globalScope(requireActor(caller));
      return (await sendCommand(bus, C.stats, scope, opts(caller))).stats;
    },
  };
}

export type TransactionsService = ReturnType<typeof createTransactionsService>;
