import { confirmationsFor, type EscrowContract, finalityFallbackDepths, type TokenContract } from '@holdfast/config';
import {
  type AppEnv,
  AppError,
  CHAIN_IDS,
  type EscrowTerms,
  type FinalityLevel,
  type LookupEscrowContractReply,
  type Network,
} from '@holdfast/contracts';
import { EscrowStatus, escrowGenuineness, evmChain, holdfastEscrowAbi, uuidToOnchainId } from '@holdfast/escrow';
import {
  type Address,
  BlockNotFoundError,
  type Chain,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hash,
  type Hex,
  http,
  type PublicClient,
  type Transaction,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

export const sameAddress = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

export interface ChainSettings {
  appEnv: string;
  rpcUrls: Record<string, string>;
  escrowContracts: EscrowContract[];
  tokenContracts: TokenContract[];
  /** CHAIN_CONFIRMATIONS overrides per network (else the defaults of `confirmationsFor`). */
  confirmations?: Partial<Record<Network, number>>;
  attesterPrivateKey: Hex | undefined;
}

export interface ChainAccessDeps {
  /**
   * The chain-indexer's answer to INDEXER_COMMANDS.lookupContract: whether an address is an escrow
   * Holdfast follows (configured there, or deployed and registered by workspace-service).
   */
  lookupContract: (network: string, address: Address) => Promise<LookupEscrowContractReply>;
}

export interface OnchainEscrow {
  status: number;
  sender: Address;
  receiver: Address;
  token: Address;
  attester: Address;
  amount: bigint;
  holdDeadline: bigint;
}

/** What `read` answers, or null when it throws `notFound` (the node does not know the hash yet). */
async function orNullWhen<T>(notFound: abstract new (...args: never[]) => Error, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof notFound) return null;
    throw error;
  }
}

/**
 * Payments' view of the chains: receipts (viem, the network's RPC of CHAIN_RPC_URLS), the token of
 * each currency (TOKEN_CONTRACTS), which contracts are Holdfast escrows, and the attester's calls.
 * RPC failures become UPSTREAM_UNAVAILABLE (503) for a request; workers retry them.
 */
export function createChainAccess(settings: ChainSettings, deps: ChainAccessDeps) {
  const publicClients = new Map<string, PublicClient>();
  /** Escrow contracts proven genuine by their code (addresses lower-case), per network. */
  const genuine = new Set<string>();
  const attester = settings.attesterPrivateKey ? privateKeyToAccount(settings.attesterPrivateKey) : undefined;

  /** The configured ERC-20 of a currency (in `local`, USDC falls back to the network's MockUSDC). */
  function tokenOf(network: string, currency: string): TokenContract | undefined {
    const find = (symbol: string) => settings.tokenContracts.find((t) => t.network === network && t.symbol === symbol);
    const token = find(currency) ?? (settings.appEnv === 'local' && currency === 'USDC' ? find('MockUSDC') : undefined);
    return token?.address.startsWith('0x') ? token : undefined;
  }

  function rpcOf(network: string): string {
    const url = settings.rpcUrls[network];
    if (!url) throw new AppError('CONTRACT_NOT_AVAILABLE', `No RPC is configured for ${network}`, { reason: 'no_rpc', network });
    return url;
  }

  function chainOf(network: string): Chain {
    const id = CHAIN_IDS[network as Network];
    if (!id) throw new AppError('CONTRACT_NOT_AVAILABLE', `${network} is not an EVM network`, { reason: 'not_evm', network });
    return evmChain({ id, name: network, rpcUrl: rpcOf(network) });
  }

  function client(network: string): PublicClient {
    let c = publicClients.get(network);
    if (!c) {
      c = createPublicClient({
        chain: chainOf(network),
        transport: http(rpcOf(network), { retryCount: 1, timeout: 10_000 }),
        pollingInterval: 250,
      });
      publicClients.set(network, c);
    }
    return c;
  }

  async function rpc<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError('UPSTREAM_UNAVAILABLE', `The chain's RPC did not answer (${what})`, undefined, undefined, { cause: error });
    }
  }

  return {
    chainId(network: string): number {
      return chainOf(network).id;
    },

    /** The network's viem client (the relayer reads, simulates and broadcasts through it). */
    publicClient(network: string): PublicClient {
      return client(network);
    },

    /** Runs an RPC read, an RPC failure becoming UPSTREAM_UNAVAILABLE (503). */
    rpc,

    /** The attester of the escrows payments settles (PAYMENTS_ATTESTER_PRIVATE_KEY), or undefined when none is configured. */
    attesterAddress(): Address | undefined {
      return attester?.address;
    },

    requireAttester(): Address {
      if (!attester) {
        throw new AppError('CONTRACT_NOT_AVAILABLE', 'No attester key is configured (PAYMENTS_ATTESTER_PRIVATE_KEY)', {
          reason: 'no_attester',
        });
      }
      return attester.address;
    },

    /** The ERC-20 of a currency on a network (TOKEN_CONTRACTS; in `local`, USDC falls back to the network's MockUSDC). */
    tokenAddress(network: string, currency: string): Address {
      const token = tokenOf(network, currency);
      if (!token) {
        throw new AppError('CONTRACT_NOT_AVAILABLE', `No ${currency} token contract is configured for ${network} (TOKEN_CONTRACTS)`, {
          reason: 'no_token',
          network,
          currency,
        });
      }
      return getAddress(token.address);
    },

    /** The escrow contract, token and attester a sender's wallet needs on a network, null where none is configured. */
    escrowTerms(network: string, currency: string): EscrowTerms {
      const contract = settings.escrowContracts.find((c) => c.network === network);
      const token = tokenOf(network, currency);
      return {
        contractAddress: contract ? getAddress(contract.address) : null,
        tokenAddress: token ? getAddress(token.address) : null,
        attester: attester?.address ?? null,
      };
    },

    /** The receipt, or null while the transaction is not mined (or unknown to the node). */
    async receipt(network: string, hash: Hash): Promise<TransactionReceipt | null> {
      return rpc('getTransactionReceipt', () =>
        orNullWhen(TransactionReceiptNotFoundError, () => client(network).getTransactionReceipt({ hash })),
      );
    },

    /** Confirmations a receipt needs before a submitted hash moves a transaction (CHAIN_CONFIRMATIONS; 0 in `local`). */
    requiredConfirmations(network: string): number {
      return confirmationsFor(network as Network, settings.appEnv as AppEnv, settings.confirmations);
    },

    /** The latest block number of a network. */
    async latestBlock(network: string): Promise<bigint> {
      return rpc('getBlockNumber', () => client(network).getBlockNumber({ cacheTime: 0 }));
    },

    /** The hash of block `n` (lower case) on the chain now, or null when it has none. */
    async blockHashAt(network: string, n: bigint): Promise<string | null> {
      const block = await rpc('getBlock', () =>
        orNullWhen(BlockNotFoundError, () => client(network).getBlock({ blockNumber: n, includeTransactions: false })),
      );
      return block?.hash ? block.hash.toLowerCase() : null;
    },

    /**
     * The level a block has reached on the chain now (docs/chain.md, levels), as the indexer
     * computes it: the RPC's `finalized`/`safe` blocks (the fallback depths where it serves no tag),
     * else `confirmed` at the network's confirmations, else `seen`; and the confirmations on top.
     */
    async levelOf(network: string, blockNumber: bigint): Promise<{ finality: FinalityLevel; confirmations: number }> {
      const c = client(network);
      const tagged = (blockTag: 'safe' | 'finalized') =>
        c.getBlock({ blockTag, includeTransactions: false }).then(
          (b) => b.number,
          () => null,
        );
      const [latest, safe, finalized] = await rpc('getBlock', () =>
        Promise.all([c.getBlockNumber({ cacheTime: 0 }), tagged('safe'), tagged('finalized')]),
      );
      const depths = finalityFallbackDepths(network as Network);
      const safeAt = safe ?? latest - BigInt(depths.safe);
      const finalizedAt = finalized ?? latest - BigInt(depths.finalized);
      const depth = latest - blockNumber;
      const required = BigInt(confirmationsFor(network as Network, settings.appEnv as AppEnv, settings.confirmations));
      const finality: FinalityLevel =
        blockNumber <= finalizedAt && blockNumber <= safeAt
          ? 'finalized'
          : blockNumber <= safeAt
            ? 'safe'
            : depth >= required
              ? 'confirmed'
              : 'seen';
      return { finality, confirmations: Number(depth < 0n ? 0n : depth) };
    },

    async transaction(network: string, hash: Hash): Promise<Transaction | null> {
      return rpc('getTransaction', () => orNullWhen(TransactionNotFoundError, () => client(network).getTransaction({ hash })));
    },

    /**
     * Whether `address` is a Holdfast escrow. Anyone can deploy HoldfastEscrow's runtime code behind
     * an init code of their own (periods of 0, so that anyone may `claimExpired` at once) and emit
     * `EscrowCreated` from it: only these are escrows (docs/security.md, "Only Holdfast's escrow"):
     * - one of payments' ESCROW_CONTRACTS for the network (the operator's);
     * - a contract the chain-indexer follows (its ESCROW_CONTRACTS, or deployed and registered by
     *   workspace-service) whose code is HoldfastEscrow's exactly, but for the compiler's immutable
     *   ranges, and whose periods are within the constructor's bounds.
     * A yes is kept for the process's life (code and immutables never change); a no is asked again
     * (a dedicated escrow may be registered later). An indexer that does not answer is
     * UPSTREAM_UNAVAILABLE: a request answers 503, the CHAIN consumer retries.
     */
    async isEscrowContract(network: string, address: string): Promise<boolean> {
      const lower = address.toLowerCase();
      if (settings.escrowContracts.some((c) => c.network === network && c.address === lower)) return true;
      const key = `${network}:${lower}`;
      if (genuine.has(key)) return true;
      const followed = await deps.lookupContract(network, getAddress(address));
      if (followed.source === null) return false;
      const found = await rpc('escrowGenuineness', () => escrowGenuineness(client(network), getAddress(address)));
      if (found.reason !== null) return false;
      genuine.add(key);
      return true;
    },

    /** The escrow of a transaction, at the latest block or at `blockNumber` (the reconciler reads it CHAIN_CONFIRMATIONS deep). */
    async getEscrow(network: string, escrowAddress: string, transactionId: string, blockNumber?: bigint): Promise<OnchainEscrow> {
      const e = await rpc('getEscrow', () =>
        client(network).readContract({
          address: getAddress(escrowAddress),
          abi: holdfastEscrowAbi,
          functionName: 'getEscrow',
          args: [uuidToOnchainId(transactionId)],
          ...(blockNumber === undefined ? {} : { blockNumber }),
        }),
      );
      return e as unknown as OnchainEscrow;
    },

    /** The latest block's timestamp (seconds): the contract's clock for hold deadlines. */
    async chainTime(network: string): Promise<bigint> {
      const block = await rpc('getBlock', () => client(network).getBlock({ blockTag: 'latest' }));
      return block.timestamp;
    },

    /**
     * Test clock (docs/test-clock.md): the next block of a development chain (anvil, hardhat) gets
     * `atSeconds` as its timestamp and is mined now. A node that refuses (a public chain) is
     * CONFLICT `chain_clock_fixed`; an unreachable one UPSTREAM_UNAVAILABLE.
     */
    async moveChainClock(network: string, atSeconds: bigint): Promise<void> {
      const node = client(network);
      try {
        await node.request({ method: 'evm_setNextBlockTimestamp', params: [`0x${atSeconds.toString(16)}`] } as never);
      } catch (error) {
        const code = (error as { code?: number }).code ?? (error as { cause?: { code?: number } }).cause?.code;
        if (
          code === -32601 ||
          code === -32600 ||
          code === -32602 ||
          /not (found|supported|available)|does not exist/i.test(String(error))
        ) {
          throw new AppError('CONFLICT', `The chain of ${network} is not a development chain: its clock cannot be moved`, {
            reason: 'chain_clock_fixed',
            network,
          });
        }
        throw new AppError('UPSTREAM_UNAVAILABLE', "The chain's RPC did not answer (evm_setNextBlockTimestamp)", undefined, undefined, {
          cause: error,
        });
      }
      await rpc('evm_mine', () => node.request({ method: 'evm_mine', params: [] } as never));
    },

    /** Sends the attester's `release(id)`, `refund(id, bps)` or `freeze(id)` and waits for its receipt. */
    async settle(
      network: string,
      escrowAddress: string,
      transactionId: string,
      call: { kind: 'release' } | { kind: 'refund'; bps: number } | { kind: 'freeze' },
    ): Promise<{ hash: Hash; status: 'success' | 'reverted' }> {
      if (!attester) throw new AppError('CONTRACT_NOT_AVAILABLE', 'No attester key is configured', { reason: 'no_attester' });
      const wallet = createWalletClient({ account: attester, chain: chainOf(network), transport: http(rpcOf(network)) });
      const id = uuidToOnchainId(transactionId);
      const address = getAddress(escrowAddress);
      const hash =
        call.kind === 'refund'
          ? await wallet.writeContract({ address, abi: holdfastEscrowAbi, functionName: 'refund', args: [id, BigInt(call.bps)] })
          : await wallet.writeContract({ address, abi: holdfastEscrowAbi, functionName: call.kind, args: [id] });
      const receipt = await client(network).waitForTransactionReceipt({ hash, timeout: 60_000 });
      return { hash, status: receipt.status };
    },
  };
}
export type ChainAccess = ReturnType<typeof createChainAccess>;
export { EscrowStatus };
