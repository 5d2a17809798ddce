import { AppError } from '@holdfast/contracts';
import { fundingTokenAbi } from '@holdfast/escrow';
import { type Address, type Hex, type PrivateKeyAccount, type PublicClient, zeroHash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainAccess } from '../settlement/index.js';

export interface RelayerKeys {
  /** RELAYER_PRIVATE_KEYS: network -> key. */
  keys: Record<string, Hex>;
  /** The key of a network without one (anvil #6 in `local`), or none. */
  defaultKey: Hex | undefined;
}

/** A node's answers to a raw transaction it already has (or already mined): not failures of ours. */
const ALREADY_THERE = /already known|known transaction|nonce too low|already imported|replacement transaction underpriced/i;

/** The relayer's accounts per network and its few chain calls that settlement has no use for. */
export function createRelayerChain(chain: ChainAccess, settings: RelayerKeys, networks: string[]) {
  const accounts = new Map<string, PrivateKeyAccount>();
  for (const network of networks) {
    const key = settings.keys[network] ?? settings.defaultKey;
    if (key) accounts.set(network, privateKeyToAccount(key));
  }

  return {
    /** The networks that have a relayer key (and an RPC). */
    networks(): string[] {
      return [...accounts.keys()];
    },

    account(network: string): PrivateKeyAccount | undefined {
      return accounts.get(network);
    },

    requireAccount(network: string): PrivateKeyAccount {
      const account = accounts.get(network);
      if (!account) {
        throw new AppError('CONTRACT_NOT_AVAILABLE', `No relayer key is configured for ${network} (RELAYER_PRIVATE_KEYS)`, {
          reason: 'no_relayer',
          network,
        });
      }
      return account;
    },

    client(network: string): PublicClient {
      return chain.publicClient(network);
    },

    async balance(network: string, address: Address): Promise<bigint> {
      return chain.rpc('getBalance', () => chain.publicClient(network).getBalance({ address }));
    },

    /** Which of the standards a token answers: EIP-3009 (`authorizationState`) and EIP-2612 (`nonces`). */
    async tokenSupport(network: string, token: Address, owner: Address): Promise<{ eip3009: boolean; eip2612: boolean }> {
      const client = chain.publicClient(network);
      const answers = async (read: () => Promise<unknown>) =>
        read().then(
          () => true,
          () => false,
        );
      const [eip3009, eip2612] = await Promise.all([
        answers(() =>
          client.readContract({ address: token, abi: fundingTokenAbi, functionName: 'authorizationState', args: [owner, zeroHash] }),
        ),
        answers(() => client.readContract({ address: token, abi: fundingTokenAbi, functionName: 'nonces', args: [owner] })),
      ]);
      return { eip3009, eip2612 };
    },

    /**
     * Sends signed bytes. A node that already has them (or mined them) is fine; any other failure
     * is returned, not thrown: the bytes are stored, the worker sends them again.
     */
    async broadcast(network: string, raw: Hex): Promise<Error | null> {
      try {
        await chain.publicClient(network).sendRawTransaction({ serializedTransaction: raw });
        return null;
      } catch (error) {
        const text = error instanceof Error ? `${error.message} ${(error as { details?: string }).details ?? ''}` : String(error);
        if (ALREADY_THERE.test(text)) return null;
        return error instanceof Error ? error : new Error(text);
      }
    },
  };
}
export type RelayerChain = ReturnType<typeof createRelayerChain>;
