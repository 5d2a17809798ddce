import { randomUUID } from 'node:crypto';
import type { CustodyBConfig, Network, WalletAccount, WalletAccountSpec } from '@holdfast/contracts';
import { hmacSha256 } from '@holdfast/secrets';
import { Type } from '@sinclair/typebox';
import { failedConnection, type ProviderBalance, type WalletProviderAdapter } from './adapter.js';
import { type VendorAdapterDeps, vendorAccount, vendorDate, vendorDecimal } from './vendor-common.js';
import { createVendorClient } from './vendor-http.js';

/*
 * CUSTODY_B: vaults holding addresses per asset type (docs/wallets.md, "CUSTODY_B").
 *   auth     X-API-Key: <apiKey>, X-Timestamp: <unix ms>,
 *            X-Signature: hex HMAC-SHA256(apiSecret, timestamp + METHOD + path-with-query + body)
 *   GET  /api/v1/vaults?limit=1                    -> {vaults: [{id, name, createdAt}]}
 *   POST /api/v1/vaults {name, idempotencyKey, customerRefId?} -> {id, name, createdAt}
 *   POST /api/v1/vaults/{id}/addresses {assetType: EVM|SOLANA} -> {address, assetType, derivationPath}
 *   GET  /api/v1/vaults/{id}/addresses             -> {addresses: [{address, assetType, derivationPath}]}
 *   GET  /api/v1/vaults/{id}/balances?network=     -> {balances: [{address, network, asset: {symbol, contractAddress|null, native}, available}]}
 *   errors   {error: {code: string, message: string}}
 */

const Vault = Type.Object({ id: Type.String({ minLength: 1 }), name: Type.String(), createdAt: Type.String() });
const Vaults = Type.Object({ vaults: Type.Array(Vault) });
const Address = Type.Object({
  address: Type.String(),
  assetType: Type.Union([Type.Literal('EVM'), Type.Literal('SOLANA')]),
  derivationPath: Type.Union([Type.String(), Type.Null()]),
});
const Addresses = Type.Object({ addresses: Type.Array(Address) });
const Balances = Type.Object({
  balances: Type.Array(
    Type.Object({
      address: Type.String(),
      network: Type.String(),
      asset: Type.Object({ symbol: Type.String(), contractAddress: Type.Union([Type.String(), Type.Null()]), native: Type.Boolean() }),
      available: Type.String(),
    }),
  ),
});

export function createCustodyBAdapter(config: CustodyBConfig, deps: VendorAdapterDeps): WalletProviderAdapter {
  const client = createVendorClient({
    provider: 'CUSTODY_B',
    baseUrl: config.baseUrl,
    timeoutMs: deps.timeoutMs,
    dispatcher: deps.dispatcher,
    authenticate: ({ method, path, body }) => {
      const timestamp = String(Date.now());
      return {
        'x-api-key': config.apiKey,
        'x-timestamp': timestamp,
        'x-signature': hmacSha256(config.apiSecret, `${timestamp}${method}${path}${body ?? ''}`),
      };
    },
    errorMessage: (body) => (body as { error?: { message?: unknown } })?.error?.message as string | undefined,
  });

  const toAccount = (a: { address: string; assetType: 'EVM' | 'SOLANA'; derivationPath: string | null }): WalletAccount =>
    vendorAccount('CUSTODY_B', a.address, a.assetType === 'EVM' ? 'ADDRESS_FORMAT_ETHEREUM' : 'ADDRESS_FORMAT_SOLANA', a.derivationPath);

  async function addAddresses(vaultId: string, specs: WalletAccountSpec[]): Promise<WalletAccount[]> {
    const created: WalletAccount[] = [];
    for (const spec of specs) {
      const assetType = spec.addressFormat === 'ADDRESS_FORMAT_ETHEREUM' ? 'EVM' : 'SOLANA';
      created.push(toAccount(await client.call('POST', `/api/v1/vaults/${encodeURIComponent(vaultId)}/addresses`, Address, { assetType })));
    }
    return created;
  }

  return {
    kind: 'CUSTODY_B',
    capabilities: { choosesPaths: false },

    testConnection: async () => {
      const base = { providerType: 'CUSTODY_B', baseUrl: config.baseUrl };
      try {
        await client.call('GET', '/api/v1/vaults?limit=1', Vaults);
        return { success: true, message: 'CUSTODY_B accepted the credentials', details: base };
      } catch (error) {
        return failedConnection(error, base);
      }
    },

    createWallet: async ({ name, refId, accounts, idempotencyKey }) => {
      const vault = await client.call('POST', '/api/v1/vaults', Vault, {
        name,
        idempotencyKey: idempotencyKey ?? randomUUID(),
        ...(refId ? { customerRefId: refId } : {}),
      });
      return { walletId: vault.id, accounts: await addAddresses(vault.id, accounts), createdAt: vendorDate('CUSTODY_B', vault.createdAt) };
    },

    createAccounts: ({ walletId, accounts }) => addAddresses(walletId, accounts),

    listAccounts: async ({ walletId }) => {
      const { addresses } = await client.call('GET', `/api/v1/vaults/${encodeURIComponent(walletId)}/addresses`, Addresses);
      return addresses.map(toAccount);
    },

    getBalances: async ({ walletId, network }): Promise<ProviderBalance[]> => {
      const query = new URLSearchParams({ network });
      const { balances } = await client.call('GET', `/api/v1/vaults/${encodeURIComponent(walletId)}/balances?${query}`, Balances);
      const byAddress = new Map<string, ProviderBalance>();
      for (const b of balances) {
        if (b.network !== network) continue;
        const entry = byAddress.get(b.address) ?? {
          address: b.address,
          network: network as Network,
          nativeBalance: '0',
          nativeSymbol: network.startsWith('solana') ? 'SOL' : 'ETH',
          tokens: [],
        };
        if (b.asset.native) {
          entry.nativeBalance = vendorDecimal('CUSTODY_B', b.available);
          entry.nativeSymbol = b.asset.symbol;
        } else {
          entry.tokens.push({
            symbol: b.asset.symbol,
            balance: vendorDecimal('CUSTODY_B', b.available),
            contractAddress: b.asset.contractAddress ?? '',
          });
        }
        byAddress.set(b.address, entry);
      }
      return [...byAddress.values()];
    },
  };
}
