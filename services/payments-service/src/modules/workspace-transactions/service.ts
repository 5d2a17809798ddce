import type {
  AppEnv,
  CommandReply,
  CommandRequest,
  CreateTransactionBody,
  ForwardedTransactionInput,
  PaymentsTransaction,
  PlatformTransaction,
  WORKSPACE_TRANSACTION_COMMANDS,
} from '@holdfast/contracts';
import { notFound } from '@holdfast/contracts';
import type { Authenticator } from '../auth/index.js';
import { normalizeAmount, resolveNetwork } from '../money/index.js';
import type { WorkspaceTransactionsRepository } from './repository.js';

type Cmd = typeof WORKSPACE_TRANSACTION_COMMANDS;

/**
 * What the Workspace API's create and submit-escrow-hash reach in the transactions module: the
 * same service functions the Payments API routes call, scoped to one platform. Wired in service.ts.
 */
export interface TransactionOperations {
  create(platformId: string, input: ForwardedTransactionInput): Promise<PaymentsTransaction>;
  submitEscrowHash(platformId: string, transactionId: string, transactionHash: string): Promise<PaymentsTransaction>;
}

/**
 * The Payments API create body of a Workspace API create: the same fields; `controlConfigs` (the
 * Workspace API's controls) become an embedded template, unless a library `templateId` is named.
 */
export function forwardedCreateBody(input: ForwardedTransactionInput): CreateTransactionBody {
  const { controlConfigs, ...rest } = input;
  const body = { ...rest } as CreateTransactionBody;
  if (controlConfigs && controlConfigs.length > 0 && !input.templateId) {
    body.template = { templateName: 'workspace controls', controls: controlConfigs } as unknown as CreateTransactionBody['template'];
  }
  return body;
}

/**
 * The Workspace API's transaction commands (contracts: WORKSPACE_TRANSACTION_COMMANDS): reads over
 * a workspace's platforms and addresses, key verification, and create / submit-escrow-hash
 * forwarded to the transactions module under the platform named.
 */
export function createWorkspaceTransactionsService(deps: {
  repository: WorkspaceTransactionsRepository;
  authenticator: Pick<Authenticator, 'apiKey'>;
  operations: TransactionOperations;
  appEnv: AppEnv;
}) {
  const { repository, authenticator, operations, appEnv } = deps;
  /**
   * The request's scope, its platforms kept only where they are of the workspaces it names: payments
   * decides which platforms are a workspace's, not the sender (issue 28 item 7).
   */
  const scopeOf = async (r: { workspaceIds: string[] | 'all'; platformIds: string[]; addresses: string[] }) => ({
    platformIds: r.workspaceIds === 'all' ? r.platformIds : await repository.platformsOfWorkspaces(r.platformIds, r.workspaceIds),
    addresses: r.addresses.map((a) => a.toLowerCase()),
  });

  return {
    list: async (r: CommandRequest<Cmd['list']>): Promise<CommandReply<Cmd['list']>> =>
      repository.list(await scopeOf(r), r.filters, r.page, r.limit),

    get: async (r: CommandRequest<Cmd['get']>): Promise<PlatformTransaction> => {
      const found = await repository.get(await scopeOf(r), r.transactionId);
      if (!found) throw notFound('Transaction');
      return found;
    },

    stats: async (r: CommandRequest<Cmd['stats']>): Promise<CommandReply<Cmd['stats']>> => ({
      stats: await repository.stats(await scopeOf(r)),
    }),

    verifyKey: async (r: CommandRequest<Cmd['verifyKey']>): Promise<CommandReply<Cmd['verifyKey']>> => {
      const outcome = await authenticator.apiKey(r.apiKey);
      if ('error' in outcome) throw outcome.error;
      const p = outcome.principal;
      return {
        platformId: p.platformId,
        platformName: p.platformName,
        workspaceId: p.workspaceId,
        sandbox: p.sandbox,
        scopes: [...p.scopes] as never,
      };
    },

    /** Payments' own rules first (bad input changes nothing), then the transactions module's create. */
    create: async (r: CommandRequest<Cmd['create']>): Promise<PlatformTransaction> => {
      const platform = await repository.activePlatformOf(r.workspaceId, r.platformId);
      if (!platform) throw notFound('Platform');
      const amount = normalizeAmount(r.transaction.amount, 'amount', { currency: r.transaction.currency ?? 'USDC' });
      const { network } = resolveNetwork(appEnv, r.transaction.blockchainNetwork, { field: 'network', sandbox: platform.sandbox });
      const created = await operations.create(platform.id, { ...r.transaction, amount, blockchainNetwork: network });
      return { ...created, platformName: platform.name };
    },

    /**
     * Checked here, not trusted from the sender: the platform must be one of the workspace's (a
     * workspace-service bug, or anyone with its NATS user, could otherwise move any platform's
     * transaction by naming it; issue 28 item 7).
     */
    submitEscrowHash: async (r: CommandRequest<Cmd['submitEscrowHash']>): Promise<PlatformTransaction> => {
      if (!(await repository.activePlatformOf(r.workspaceId, r.platformId))) throw notFound('Platform');
      const found = await repository.get({ platformIds: [r.platformId], addresses: [] }, r.transactionId);
      if (!found) throw notFound('Transaction');
      const moved = await operations.submitEscrowHash(r.platformId, r.transactionId, r.transactionHash);
      return { ...moved, platformName: found.platformName };
    },
  };
}

export type WorkspaceTransactionsService = ReturnType<typeof createWorkspaceTransactionsService>;
