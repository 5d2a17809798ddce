import { randomUUID } from 'node:crypto';
import {
  AppError,
  type CustodyAConfig,
  type Network,
  validationError,
  type WalletAccount,
  type WalletAccountSpec,
} from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';
import { failedConnection, type ProviderBalance, ProviderError, type WalletProviderAdapter } from './adapter.js';
import { defaultNetworkFor, formatOfNetwork, type VendorAdapterDeps, vendorAccount, vendorDate, vendorDecimal } from './vendor-common.js';
import { createVendorClient } from './vendor-http.js';

/*
 * CUSTODY_A: wallet sets of single-blockchain wallets (docs/wallets.md, "CUSTODY_A").
 *   auth     Authorization: Bearer <apiKey>
 *   GET  /v1/config/entity                         -> {data: {appId}}
 *   POST /v1/wallets {idempotencyKey, walletSetId, blockchains[], count, refId?}
 *                                                  -> {data: {wallets: [Wallet]}}
 *   GET  /v1/wallets?walletSetId=&pageSize=&pageAfter=  -> {data: {wallets: [Wallet]}}
 *   GET  /v1/wallets/{id}/balances                 -> {data: {walletId, address, blockchain, tokenBalances: [{token: {symbol, isNative, tokenAddress}, amount}]}}
 *   errors   {code: number, message: string}
 *   Wallet   {id, address, blockchain, walletSetId, refId?, state, createDate}
 */

/** A's blockchain identifiers. */
export const CUSTODY_A_BLOCKCHAINS: Partial<Record<Network, string>> = {
  ethereum: 'ETH',
  'ethereum-sepolia': 'ETH-SEPOLIA',
  base: 'BASE',
  'base-sepolia': 'BASE-SEPOLIA',
  solana: 'SOL',
  'solana-devnet': 'SOL-DEVNET',
};
const NETWORK_OF_BLOCKCHAIN = Object.fromEntries(Object.entries(CUSTODY_A_BLOCKCHAINS).map(([n, b]) => [b, n as Network]));

const Wallet = Type.Object({
  id: Type.String({ minLength: 1 }),
  address: Type.String({ minLength: 1 }),
  blockchain: Type.String(),
  walletSetId: Type.String(),
  refId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  state: Type.String(),
  createDate: Type.String(),
});
const Wallets = Type.Object({ data: Type.Object({ wallets: Type.Array(Wallet) }) });
const Entity = Type.Object({ data: Type.Object({ appId: Type.String() }) });
const Balances = Type.Object({
  data: Type.Object({
    walletId: Type.String(),
    address: Type.String(),
    blockchain: Type.String(),
    tokenBalances: Type.Array(
      Type.Object({
        token: Type.Object({ symbol: Type.String(), isNative: Type.Boolean(), tokenAddress: Type.Union([Type.String(), Type.Null()]) }),
        amount: Type.String(),
      }),
    ),
  }),
});

const PAGE_SIZE = 50;
const MAX_PAGES = 20;

export interface CustodyAAdapter extends WalletProviderAdapter {
  readonly kind: 'CUSTODY_A';
  /** A's own blockchain name of a network, or undefined when A has none. */
  blockchainOf(network: Network): string | undefined;
}

export function createCustodyAAdapter(config: CustodyAConfig, walletSetId: string | null, deps: VendorAdapterDeps): CustodyAAdapter {
  const client = createVendorClient({
    provider: 'CUSTODY_A',
    baseUrl: config.baseUrl,
    timeoutMs: deps.timeoutMs,
    dispatcher: deps.dispatcher,
    authenticate: () => ({ authorization: `Bearer ${config.apiKey}` }),
    errorMessage: (body) => (body as { message?: unknown })?.message as string | undefined,
  });

  function networkOf(blockchain: string): Network {
    const network = NETWORK_OF_BLOCKCHAIN[blockchain];
    if (!network) throw new ProviderError('CUSTODY_A', 'malformed_response', undefined, `unknown blockchain ${blockchain}`);
    return network;
  }

  function accountOf(wallet: { address: string; blockchain: string }): WalletAccount {
    return vendorAccount('CUSTODY_A', wallet.address, formatOfNetwork(networkOf(wallet.blockchain)), null);
  }

  function requireSet(): string {
    if (!walletSetId) throw new AppError('WALLET_PROVIDER_NOT_CONFIGURED', 'The CUSTODY_A config has no walletSetId');
    return walletSetId;
  }

  function blockchainFor(spec: WalletAccountSpec | undefined, network: Network | undefined): string {
    const format = spec?.addressFormat ?? (network ? formatOfNetwork(network) : 'ADDRESS_FORMAT_ETHEREUM');
    const chosen = network && formatOfNetwork(network) === format ? network : defaultNetworkFor(format, deps.appEnv);
    const blockchain = CUSTODY_A_BLOCKCHAINS[chosen];
    if (!blockchain) throw validationError([{ field: 'network', reason: `is not offered by CUSTODY_A: ${chosen}` }]);
    return blockchain;
  }

  async function createOne(setId: string, blockchain: string, refId?: string, idempotencyKey?: string) {
    const answer = await client.call('POST', '/v1/wallets', Wallets, {
      idempotencyKey: idempotencyKey ?? randomUUID(),
      walletSetId: setId,
      blockchains: [blockchain],
      count: 1,
      ...(refId ? { refId } : {}),
    });
    const wallet = answer.data.wallets[0];
    if (!wallet) throw new ProviderError('CUSTODY_A', 'malformed_response', undefined, 'no wallet in the answer');
    return wallet;
  }

  return {
    kind: 'CUSTODY_A',
    capabilities: { choosesPaths: false },
    blockchainOf: (network) => CUSTODY_A_BLOCKCHAINS[network],

    testConnection: async () => {
      const base = { providerType: 'CUSTODY_A', baseUrl: config.baseUrl };
      try {
        const entity = await client.call('GET', '/v1/config/entity', Entity);
        return { success: true, message: 'CUSTODY_A accepted the credentials', details: { ...base, appId: entity.data.appId } };
      } catch (error) {
        return failedConnection(error, base);
      }
    },

    createWallet: async ({ refId, network, accounts, idempotencyKey }) => {
      const wallet = await createOne(requireSet(), blockchainFor(accounts[0], network), refId, idempotencyKey);
      return { walletId: wallet.id, accounts: [accountOf(wallet)], createdAt: vendorDate('CUSTODY_A', wallet.createDate) };
    },

    createAccounts: async ({ walletId, accounts, network }) => {
      const created: WalletAccount[] = [];
      for (const spec of accounts) created.push(accountOf(await createOne(walletId, blockchainFor(spec, network))));
      return created;
    },

    listAccounts: async ({ walletId }) => {
      const accounts: WalletAccount[] = [];
      let after: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const query = new URLSearchParams({ walletSetId: walletId, pageSize: String(PAGE_SIZE), ...(after ? { pageAfter: after } : {}) });
        const { data } = await client.call('GET', `/v1/wallets?${query}`, Wallets);
        accounts.push(...data.wallets.map(accountOf));
        if (data.wallets.length < PAGE_SIZE) break;
        after = data.wallets.at(-1)?.id;
      }
      return accounts;
    },

    getBalances: async ({ walletId }): Promise<ProviderBalance[]> => {
      const { data } = await client.call('GET', `/v1/wallets/${encodeURIComponent(walletId)}/balances`, Balances);
      const network = networkOf(data.blockchain);
      const account = accountOf(data);
      const native = data.tokenBalances.find((b) => b.token.isNative);
      return [
        {
          address: account.address,
          network,
          nativeBalance: native ? vendorDecimal('CUSTODY_A', native.amount) : '0',
          nativeSymbol: native?.token.symbol ?? (network.startsWith('solana') ? 'SOL' : 'ETH'),
          tokens: data.tokenBalances
            .filter((b) => !b.token.isNative)
            .map((b) => ({
              symbol: b.token.symbol,
              balance: vendorDecimal('CUSTODY_A', b.amount),
              contractAddress: b.token.tokenAddress ?? '',
            })),
        },
      ];
    },
  };
}
