import type { EscrowContract } from '@holdfast/config';
import {
  AppError,
  type FollowEscrowContractReply,
  type FollowEscrowContractRequest,
  type LookupEscrowContractReply,
  type LookupEscrowContractRequest,
  type Network,
} from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { getAddress } from 'viem';
import type { IndexerRepository } from '../indexing/index.js';

export interface ContractRegistryDeps {
  repository: IndexerRepository;
  /** Networks this indexer has an RPC for (CHAIN_RPC_URLS), with their ESCROW_CONTRACTS entries. */
  networks: { network: Network; contracts: EscrowContract[] }[];
  /** Makes sure a follower runs for the network and tells it a contract was registered. */
  follow: (network: Network) => void;
  logger: Logger;
}

/**
 * Contracts registered at run time (INDEXER_COMMANDS.followContract): recorded in
 * `indexer.registered_contracts`, then followed by the network's indexer from their deployment
 * block (past events first), now and after every restart. Repeats answer like the first time.
 */
export function createContractRegistry(deps: ContractRegistryDeps) {
  const log = deps.logger.child({ component: 'contract-registry' });

  return {
    follow: async (request: FollowEscrowContractRequest): Promise<FollowEscrowContractReply> => {
      const settings = deps.networks.find((n) => n.network === request.network);
      if (!settings) {
        throw new AppError('CONTRACT_NOT_AVAILABLE', `The chain-indexer has no RPC for ${request.network} (CHAIN_RPC_URLS)`, {
          network: request.network,
          reason: 'no_rpc',
        });
      }
      const address = getAddress(request.address);
      const configured = settings.contracts.some((c) => c.address.toLowerCase() === address.toLowerCase());
      const { created, contract } = await deps.repository.registerContract({
        network: request.network,
        address,
        deploymentBlock: BigInt(request.deploymentBlock),
        workspaceId: request.workspaceId,
        deploymentId: request.deploymentId,
      });
      deps.follow(request.network);
      if (created) {
        log.info(
          { network: request.network, address, deploymentBlock: request.deploymentBlock, workspaceId: request.workspaceId },
          'escrow contract registered: following it from its deployment block',
        );
      }
      return {
        network: request.network,
        address,
        deploymentBlock: Number(contract.deploymentBlock),
        registeredAt: contract.registeredAt.toISOString(),
        alreadyFollowed: !created || configured,
      };
    },

    /**
     * Whether `address` is an escrow this indexer follows: configured, or registered by
     * workspace-service (which deploys them with Holdfast's code and periods). Payments asks before it
     * believes an `EscrowCreated` log; anyone can deploy look-alike code.
     */
    lookup: async (request: LookupEscrowContractRequest): Promise<LookupEscrowContractReply> => {
      const address = getAddress(request.address);
      const settings = deps.networks.find((n) => n.network === request.network);
      if (settings?.contracts.some((c) => c.address.toLowerCase() === address.toLowerCase())) {
        return { network: request.network, address, source: 'configured', deploymentBlock: null, workspaceId: null };
      }
      const registered = await deps.repository.registeredContract(request.network, address);
      if (!registered) return { network: request.network, address, source: null, deploymentBlock: null, workspaceId: null };
      return {
        network: request.network,
        address,
        source: 'registered',
        deploymentBlock: Number(registered.deploymentBlock),
        workspaceId: registered.workspaceId,
      };
    },
  };
}
export type ContractRegistry = ReturnType<typeof createContractRegistry>;
