import { AppError, type Network, notFound, validationError, type WalletAccount, type WalletAccountSpec } from '@holdfast/contracts';
import type { SecretBox } from '@holdfast/secrets';
import { type Address, createWalletClient, type Hash, type Hex, http } from 'viem';
import { evmChain, isEvmNetwork } from '../common/chains.js';
import type { CreateWalletInput, ProviderWallet, WalletProviderAdapter } from './adapter.js';
import { type DerivedKey, derive, newMnemonic, seedOf, specProblems } from './hd.js';
import type { PlatformWalletRepository } from './repository.js';

export interface PlatformAdapterDeps {
  workspaceId: string;
  repository: PlatformWalletRepository;
  secrets: SecretBox;
  /** EVM networks it can send on (CHAIN_RPC_URLS). */
  chainRpcUrls: Record<string, string>;
  rpcTimeoutMs: number;
}

export interface SendTransactionInput {
  walletId: string;
  from: string;
  network: Network;
  to: Address;
  /** Wei. */
  value?: bigint;
  data?: Hex;
}

export interface PlatformAdapter extends WalletProviderAdapter {
  readonly kind: 'PLATFORM';
  signMessage: NonNullable<WalletProviderAdapter['signMessage']>;
  /** The workspace's wallet, created (with a fresh sealed seed) on first use. */
  ensureWallet(): Promise<{ walletId: string; createdAt: string }>;
  /** The workspace's wallet when it has one. */
  findWallet(): Promise<{ walletId: string; createdAt: string } | undefined>;
  /** Signs with the derived key and broadcasts; resolves with the hash once the node accepted it. */
  sendTransaction(input: SendTransactionInput): Promise<Hash>;
}

/** Where a wallet's sealed seed is bound: a sealed value copied to another row does not open. */
export function seedContext(walletId: string): string {
  return `platform_wallets.seed:${walletId}`;
}

/**
 * The built-in PLATFORM provider: one BIP-39 HD wallet per workspace whose mnemonic is sealed with
 * AES-256-GCM under DATA_ENCRYPTION_KEY. Keys are derived when needed and never stored or returned.
 */
export function createPlatformAdapter(deps: PlatformAdapterDeps): PlatformAdapter {
  const { repository, secrets, workspaceId } = deps;

  async function walletRow(walletId: string) {
    const row = await repository.findByWorkspace(workspaceId);
    if (!row || row.id !== walletId) throw notFound('Wallet');
    return row;
  }

  async function seedFor(walletId: string): Promise<Uint8Array> {
    const row = await walletRow(walletId);
    return seedOf(secrets.open(row.seedSealed, seedContext(row.id)));
  }

  async function keyFor(walletId: string, address: string): Promise<{ key: DerivedKey; account: WalletAccount }> {
    const account = await repository.findAccount(walletId, address);
    if (!account?.path) throw new AppError('NOT_FOUND', 'Account not found in this wallet');
    return { key: derive(await seedFor(walletId), account.addressFormat, account.path), account };
  }

  async function ensureWallet() {
    const row =
      (await repository.findByWorkspace(workspaceId)) ??
      (await repository.insertIfAbsent(workspaceId, (id) => secrets.seal(newMnemonic(), seedContext(id))));
    return { walletId: row.id, createdAt: row.createdAt.toISOString() };
  }

  async function createAccounts(input: { walletId: string; accounts: WalletAccountSpec[] }): Promise<WalletAccount[]> {
    const problems = input.accounts.flatMap((spec, i) => specProblems(spec, `accounts.${i}`));
    if (problems.length > 0) throw validationError(problems);
    const seed = await seedFor(input.walletId);
    const derived: WalletAccount[] = input.accounts.map((spec) => ({
      address: derive(seed, spec.addressFormat, spec.path).address,
      addressFormat: spec.addressFormat,
      curve: spec.curve,
      path: spec.path,
    }));
    await repository.insertAccounts(input.walletId, workspaceId, derived);
    return derived;
  }

  return {
    kind: 'PLATFORM',
    capabilities: { choosesPaths: true },
    ensureWallet,

    findWallet: async () => {
      const row = await repository.findByWorkspace(workspaceId);
      return row ? { walletId: row.id, createdAt: row.createdAt.toISOString() } : undefined;
    },

    testConnection: async () => ({
      success: true,
      message: 'PLATFORM is the built-in HD wallet; it needs no connection',
      details: { providerType: 'PLATFORM' },
    }),

    createWallet: async (input: CreateWalletInput): Promise<ProviderWallet> => {
      const wallet = await ensureWallet();
      const accounts = input.accounts.length > 0 ? await createAccounts({ walletId: wallet.walletId, accounts: input.accounts }) : [];
      return { walletId: wallet.walletId, accounts, createdAt: wallet.createdAt };
    },

    createAccounts,

    listAccounts: async ({ walletId }) => {
      await walletRow(walletId);
      return repository.listAccounts(walletId);
    },

    signMessage: async ({ walletId, address, message }) => {
      const { key } = await keyFor(walletId, address);
      if (key.curve === 'CURVE_SECP256K1') return key.account.signMessage({ message });
      return key.sign(new TextEncoder().encode(message));
    },

    sendTransaction: async ({ walletId, from, network, to, value, data }) => {
      const rpcUrl = deps.chainRpcUrls[network];
      if (!rpcUrl || !isEvmNetwork(network)) {
        throw validationError([{ field: 'network', reason: `has no configured EVM RPC (CHAIN_RPC_URLS): ${network}` }]);
      }
      const { key } = await keyFor(walletId, from);
      if (key.curve !== 'CURVE_SECP256K1') throw validationError([{ field: 'from', reason: 'must be an Ethereum account' }]);
      const client = createWalletClient({
        account: key.account,
        chain: evmChain(network, rpcUrl),
        transport: http(rpcUrl, { timeout: deps.rpcTimeoutMs, retryCount: 0 }),
      });
      return client.sendTransaction({ to, value, data });
    },
  };
}
