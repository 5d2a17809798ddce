import type { FollowEscrowContractReply, FollowEscrowContractRequest, Network } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { createPollingWorker } from '@holdfast/runtime';
import type { ContractDeploymentRepository } from './repository.js';
import type { ContractDeploymentRow } from './tables.js';

/** Sends the chain-indexer's follow command (INDEXER_COMMANDS.followContract over NATS). */
export type FollowContract = (request: FollowEscrowContractRequest) => Promise<FollowEscrowContractReply>;

export interface ContractRegistrationDeps {
  repository: ContractDeploymentRepository;
  follow: FollowContract;
  logger: Logger;
  /** How often deployments still unacknowledged are announced again. */
  retryIntervalMs: number;
}

/**
 * Announces dedicated escrows to the chain-indexer, at least once. A deployment's row is its own
 * outbox entry: activated with `indexer_registered_at` null in the transaction that records the
 * deployment, announced right after the commit, and announced again every `retryIntervalMs` (by
 * every instance; the indexer's answer is the same for a repeat) until the indexer acknowledges it.
 */
export function createContractRegistration(deps: ContractRegistrationDeps) {
  const log = deps.logger.child({ component: 'contract-registration' });
  /** Set by stop(): a pass in progress ends after the announcement it is sending. */
  let stopping = false;

  /** Announces one deployment; true when the indexer acknowledged it. Never throws. */
  async function announce(row: ContractDeploymentRow): Promise<boolean> {
    const blockNumber = row.metadata.blockNumber;
    if (!row.contractAddress || row.workspaceId === null || blockNumber === undefined) return false;
    try {
      const reply = await deps.follow({
        network: row.network as Network,
        address: row.contractAddress,
        deploymentBlock: blockNumber,
        workspaceId: row.workspaceId,
        deploymentId: row.id,
      });
      await deps.repository.markIndexerRegistered(row.id);
      log.info(
        { deploymentId: row.id, network: reply.network, address: reply.address, alreadyFollowed: reply.alreadyFollowed },
        'the chain-indexer follows the dedicated escrow',
      );
      return true;
    } catch (error) {
      log.warn(
        { err: error, deploymentId: row.id, network: row.network },
        'the chain-indexer did not acknowledge a dedicated escrow; will announce it again',
      );
      return false;
    }
  }

  /** Announces every deployment still waiting (up to 100 a pass). Returns how many were acknowledged. */
  async function runOnce(): Promise<number> {
    let acknowledged = 0;
    for (const row of await deps.repository.awaitingIndexer(100)) {
      if (stopping) break;
      if (await announce(row)) acknowledged += 1;
    }
    return acknowledged;
  }

  // One pass at start (deployments left from before a restart), then every retryIntervalMs.
  const worker = createPollingWorker({
    name: 'contract-registration',
    logger: deps.logger,
    intervalMs: deps.retryIntervalMs,
    maxBackoffMs: deps.retryIntervalMs,
    pass: async () => {
      await runOnce();
      return false;
    },
  });

  return {
    announce,
    runOnce,
    /** Starts the retry loop (its first pass right away). */
    start: async (): Promise<void> => {
      stopping = false;
      await worker.start();
    },
    /** Ends the pass in progress after the announcement it is sending, then stops. */
    stop: async (): Promise<void> => {
      stopping = true;
      await worker.stop();
    },
  };
}
export type ContractRegistration = ReturnType<typeof createContractRegistration>;
