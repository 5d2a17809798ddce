import {
  AppError,
  CHAIN_IDS,
  type ContractDeployed,
  type ContractDeployment,
  type ContractForNetwork,
  type ContractNetwork,
  uuidv7,
} from '@holdfast/contracts';
import { deployEscrow } from '@holdfast/escrow';
import type { Logger } from '@holdfast/logging';
import { BaseError, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type ActorContext, type AuditSink, WALLET_AUDIT } from '../common/audit.js';
import { evmChain, evmPublicClient } from '../common/chains.js';
import type { Tx } from '../provider-configs/repository.js';
import type { ContractRegistration } from './registration.js';
import type { ContractDeploymentRepository } from './repository.js';
import { nextStatus } from './state-machine.js';
import type { ContractDeploymentRow } from './tables.js';

export interface ContractDeploymentServiceDeps {
  repository: ContractDeploymentRepository;
  /** EVM networks (CHAIN_RPC_URLS). */
  chainRpcUrls: Record<string, string>;
  /** Shared escrows per network (ESCROW_CONTRACTS). */
  sharedEscrows: Partial<Record<ContractNetwork, Hex>>;
  /** Pays for dedicated deployments (CONTRACT_DEPLOYER_PRIVATE_KEY); none means deployments are unavailable. */
  deployerPrivateKey: Hex | undefined;
  rpcTimeoutMs: number;
  /** CONTRACT_DEPLOYMENTS_PER_DAY: dedicated deployments a workspace may start in any 24 hours (the deployer pays each one's gas). */
  deploymentsPerDay: number;
  audit: AuditSink;
  logger: Logger;
  /** Announces a new dedicated escrow to the chain-indexer (at least once); none in tests that do not need it. */
  registration?: Pick<ContractRegistration, 'announce'>;
}

export function toContractDeployment(row: ContractDeploymentRow): ContractDeployment {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    globalTemplateId: row.globalTemplateId,
    network: row.network,
    contractType: row.contractType,
    contractAddress: row.contractAddress,
    factoryAddress: row.factoryAddress,
    deploymentTxHash: row.deploymentTxHash,
    deployedAt: row.deployedAt?.toISOString() ?? null,
    deployedBy: row.deployedBy,
    status: row.status,
    isShared: row.isShared,
    verified: row.verified,
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function unavailable(network: ContractNetwork, reason: string, message: string, deploymentId?: string): AppError {
  return new AppError('CONTRACT_NOT_AVAILABLE', message, { network, reason, ...(deploymentId ? { deploymentId } : {}) });
}

/** viem's one-line reason, which never quotes the RPC URL (that may hold a key). */
function shortReason(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Escrow contract deployments: a workspace's dedicated escrows (deployed here with the escrow
 * package's deployEscrow) and the shared ones the operator configures (ESCROW_CONTRACTS). The
 * contract for new transactions on a network is the workspace's active dedicated one, else the shared one.
 */
export function createContractDeploymentService(deps: ContractDeploymentServiceDeps) {
  const { repository } = deps;
  const shared = Object.entries(deps.sharedEscrows) as [ContractNetwork, Hex][];
  let synced: Promise<void> | undefined;

  /** Shared rows follow the configuration; done once per process, again after a failure. */
  function syncShared(): Promise<void> {
    synced ??= repository.syncShared(shared).catch((error: unknown) => {
      synced = undefined;
      throw error;
    });
    return synced;
  }

  const DAY_MS = 24 * 3600 * 1000;

  /**
   * The deployer pays every deployment's gas: a workspace that deploys, deprecates and deploys
   * again could drain it. At most `deploymentsPerDay` in any 24 hours (failed ones count); more is
   * 429 DEPLOYMENT_LIMIT_EXCEEDED with Retry-After (when the oldest leaves the window).
   */
  async function assertUnderDailyBound(tx: Tx, workspaceId: string): Promise<void> {
    const now = Date.now();
    const { count, oldest } = await repository.deploymentsSince(tx, workspaceId, new Date(now - DAY_MS));
    if (count < deps.deploymentsPerDay) return;
    const retryAfter = Math.max(1, Math.ceil(((oldest?.getTime() ?? now) + DAY_MS - now) / 1000));
    throw new AppError(
      'DEPLOYMENT_LIMIT_EXCEEDED',
      `The workspace started ${count} contract deployments in the last 24 hours; at most ${deps.deploymentsPerDay} (CONTRACT_DEPLOYMENTS_PER_DAY). Try again in ${retryAfter} s`,
      { limit: deps.deploymentsPerDay, windowSeconds: DAY_MS / 1000, retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }

  return {
    syncShared,

    /** GET /workspaces/{id}/contracts: the workspace's dedicated deployments (every status) and the active shared ones. */
    list: async (workspaceId: string): Promise<ContractDeployment[]> => {
      await syncShared();
      return (await repository.listForWorkspace(workspaceId)).map(toContractDeployment);
    },

    /**
     * GET /workspaces/{id}/contracts/{network}: the escrow new transactions use (dedicated if
     * active, else shared). 404 NOT_FOUND when neither exists.
     */
    getForNetwork: async (workspaceId: string, network: ContractNetwork): Promise<ContractForNetwork> => {
      await syncShared();
      const row = await repository.findActiveFor(workspaceId, network);
      if (!row?.contractAddress) throw new AppError('NOT_FOUND', `No escrow contract on ${network}`);
      return { address: row.contractAddress, network, isShared: row.isShared, deploymentId: row.id };
    },

    /**
     * POST /workspaces/{id}/contracts/{network} (admin): deploys a dedicated escrow and waits for it
     * to be mined. 201 with the deployment. 409 CONFLICT when the workspace has a pending or active
     * one there; 503 CONTRACT_NOT_AVAILABLE when the network has no RPC, no deployer key is
     * configured, the RPC is not that network or the deployment fails (the row stays, failed).
     */
    deploy: async (workspaceId: string, network: ContractNetwork, actor: ActorContext): Promise<ContractDeployed> => {
      const rpcUrl = deps.chainRpcUrls[network];
      if (!rpcUrl) throw unavailable(network, 'no_rpc', `Contract deployment is not available on ${network}: no RPC is configured`);
      if (!deps.deployerPrivateKey) {
        throw unavailable(network, 'no_deployer_key', `Contract deployment is not available on ${network}: no deployer key is configured`);
      }
      await repository.transaction((tx) => repository.failAbandoned(tx, workspaceId, network));
      if (await repository.findLiveDedicated(workspaceId, network)) {
        throw new AppError('CONFLICT', `The workspace already has a dedicated escrow on ${network}`);
      }
      const publicClient = evmPublicClient(network, rpcUrl, deps.rpcTimeoutMs);
      const chainId = await publicClient.getChainId().catch(() => undefined);
      if (chainId === undefined)
        throw unavailable(network, 'rpc_unreachable', `Contract deployment is not available on ${network}: the RPC does not answer`);
      if (chainId !== CHAIN_IDS[network]) {
        deps.logger.error({ network, chainId, expected: CHAIN_IDS[network] }, 'the RPC configured for a network serves another chain');
        throw unavailable(network, 'chain_mismatch', `Contract deployment is not available on ${network}: its RPC serves another chain`);
      }
      const account = privateKeyToAccount(deps.deployerPrivateKey);

      const pending = await repository.transaction(async (tx) => {
        await assertUnderDailyBound(tx, workspaceId);
        const row = await repository.insertPending(tx, {
          id: uuidv7(),
          workspaceId,
          network,
          contractType: 'escrow',
          status: 'pending',
          isShared: false,
          deployedBy: actor.actorId ?? null,
          metadata: { deployerAddress: account.address, factoryVersion: null },
        });
        if (!row) throw new AppError('CONFLICT', `The workspace already has a dedicated escrow on ${network}`);
        return row;
      });

      const walletClient = createWalletClient({
        account,
        chain: evmChain(network, rpcUrl),
        transport: http(rpcUrl, { timeout: deps.rpcTimeoutMs, retryCount: 0 }),
      });
      let deployment: Awaited<ReturnType<typeof deployEscrow>>;
      try {
        deployment = await repository.withLock(`contract-deployer:${account.address}:${network}`, () =>
          deployEscrow({ walletClient, publicClient }),
        );
      } catch (error) {
        const reason = shortReason(error);
        deps.logger.error({ err: error, network, deploymentId: pending.id }, 'escrow deployment failed');
        // The refusal (503) is the request's audit entry; the row stays, failed, with the reason.
        await repository.transaction((tx) =>
          repository.update(tx, pending.id, { status: nextStatus('pending', 'fail'), metadata: { ...pending.metadata, error: reason } }),
        );
        throw unavailable(network, 'deployment_failed', `The escrow deployment on ${network} failed: ${reason}`, pending.id);
      }

      const active = await repository.transaction(async (tx) => {
        const row = await repository.update(tx, pending.id, {
          status: nextStatus('pending', 'confirm'),
          contractAddress: deployment.address,
          deploymentTxHash: deployment.transactionHash,
          deployedAt: new Date(),
          metadata: {
            ...pending.metadata,
            gasUsed: Number(deployment.gasUsed),
            blockNumber: Number(deployment.blockNumber),
          },
        });
        await deps.audit(tx, {
          ...WALLET_AUDIT.contractDeploy,
          resourceId: row.id,
          workspaceId,
          details: `Deployed a dedicated escrow on ${network} at ${deployment.address}`,
          changes: {
            network: { from: null, to: network },
            status: { from: null, to: 'active' },
            contractAddress: { from: null, to: deployment.address },
          },
          actor,
          metadata: { transactionHash: deployment.transactionHash, blockNumber: Number(deployment.blockNumber) },
        });
        return row;
      });
      // Committed with indexer_registered_at null: announced now, and again by the retry loop until acknowledged.
      await deps.registration?.announce(active);
      return {
        deploymentId: active.id,
        contractAddress: deployment.address,
        transactionHash: deployment.transactionHash,
        status: active.status,
        network,
        gasUsed: Number(deployment.gasUsed),
        blockNumber: Number(deployment.blockNumber),
      };
    },

    /**
     * POST /workspaces/{id}/contracts/deployments/{deploymentId}/deprecate (admin): no longer used
     * for new transactions (escrows it holds are unaffected). Deprecating a deprecated one answers it
     * as it is. 404 when it is not this workspace's dedicated deployment; 409
     * INVALID_STATE_TRANSITION for a pending or failed one.
     */
    deprecate: async (workspaceId: string, deploymentId: string, actor: ActorContext): Promise<ContractDeployment> => {
      const row = await repository.transaction(async (tx) => {
        const found = await repository.findById(deploymentId, tx);
        if (!found || found.isShared || found.workspaceId !== workspaceId) throw new AppError('NOT_FOUND', 'Contract deployment not found');
        if (found.status === 'deprecated') return found;
        const to = nextStatus(found.status, 'deprecate');
        if (!to) {
          throw new AppError('INVALID_STATE_TRANSITION', `A ${found.status} deployment cannot be deprecated`, {
            from: found.status,
            action: 'deprecate',
          });
        }
        const updated = await repository.update(tx, found.id, { status: to });
        await deps.audit(tx, {
          ...WALLET_AUDIT.contractDeprecate,
          resourceId: found.id,
          workspaceId,
          changes: { status: { from: found.status, to } },
          actor,
        });
        return updated;
      });
      return toContractDeployment(row);
    },
  };
}
export type ContractDeploymentService = ReturnType<typeof createContractDeploymentService>;
