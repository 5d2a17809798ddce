import { randomUUID } from 'node:crypto';
import type { CustodyDConfig, Network, WalletAccount, WalletAccountSpec } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';
import { failedConnection, type ProviderBalance, ProviderError, type WalletProviderAdapter } from './adapter.js';
import { defaultNetworkFor, formatOfNetwork, unitsToDecimal, type VendorAdapterDeps, vendorAccount, vendorDate } from './vendor-common.js';
import { createVendorClient } from './vendor-http.js';

/*
 * CUSTODY_D: a project's named accounts (docs/wallets.md, "CUSTODY_D"). A "wallet" is an account
 * name: every account created under it carries it.
 *   auth     Authorization: Basic base64(keyId:keySecret)
 *   GET  /v2/health                                 -> {status: "ok", projectId}
 *   POST /v2/accounts {type: evm|solana, network, name, idempotencyKey}
 *                                                   -> {account: Account}
 *   GET  /v2/accounts?name=&pageToken=              -> {accounts: [Account], nextPageToken: string|null}
 *   GET  /v2/accounts/{address}/balances?network=   -> {balances: [{token: {symbol, contractAddress|null, decimals}, amount: {value, decimals}}]}
 *   errors   {errorType: string, errorMessage: string}
 *   Account  {id, address, type, network, name, createdAt}
 *   amounts are integers in the token's smallest unit (value) with their decimals.
 */

const Account = Type.Object({
  id: Type.String({ minLength: 1 }),
  address: Type.String(),
  type: Type.Union([Type.Literal('evm'), Type.Literal('solana')]),
  network: Type.String(),
  name: Type.String(),
  createdAt: Type.String(),
});
const Created = Type.Object({ account: Account });
const Listed = Type.Object({ accounts: Type.Array(Account), nextPageToken: Type.Union([Type.String(), Type.Null()]) });
const Health = Type.Object({ status: Type.Literal('ok'), projectId: Type.String() });
const Balances = Type.Object({
  balances: Type.Array(
    Type.Object({
      token: Type.Object({ symbol: Type.String(), contractAddress: Type.Union([Type.String(), Type.Null()]), decimals: Type.Integer() }),
      amount: Type.Object({ value: Type.String({ pattern: '^[0-9]{1,78}$' }), decimals: Type.Integer({ minimum: 0, maximum: 36 }) }),
    }),
  ),
});

const MAX_PAGES = 20;

export function createCustodyDAdapter(config: CustodyDConfig, deps: VendorAdapterDeps): WalletProviderAdapter {
  const client = createVendorClient({
    provider: 'CUSTODY_D',
    baseUrl: config.baseUrl,
    timeoutMs: deps.timeoutMs,
    dispatcher: deps.dispatcher,
    authenticate: () => ({ authorization: `Basic ${Buffer.from(`${config.keyId}:${config.keySecret}`, 'utf8').toString('base64')}` }),
    errorMessage: (body) => (body as { errorMessage?: unknown })?.errorMessage as string | undefined,
  });

  const toAccount = (a: { address: string; type: 'evm' | 'solana' }): WalletAccount =>
    vendorAccount('CUSTODY_D', a.address, a.type === 'evm' ? 'ADDRESS_FORMAT_ETHEREUM' : 'ADDRESS_FORMAT_SOLANA', null);

  async function createIn(name: string, spec: WalletAccountSpec | undefined, network: Network | undefined, idempotencyKey?: string) {
    const format = spec?.addressFormat ?? (network ? formatOfNetwork(network) : 'ADDRESS_FORMAT_ETHEREUM');
    const chosen = network && formatOfNetwork(network) === format ? network : defaultNetworkFor(format, deps.appEnv);
    const { account } = await client.call('POST', '/v2/accounts', Created, {
      type: format === 'ADDRESS_FORMAT_ETHEREUM' ? 'evm' : 'solana',
      network: chosen,
      name,
      idempotencyKey: idempotencyKey ?? randomUUID(),
    });
    return account;
  }

  async function listNamed(name: string) {
    const accounts: (typeof Account.static)[] = [];
    let pageToken: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = new URLSearchParams({ name, ...(pageToken ? { pageToken } : {}) });
      const answer = await client.call('GET', `/v2/accounts?${query}`, Listed);
      accounts.push(...answer.accounts);
      pageToken = answer.nextPageToken;
      if (!pageToken) break;
    }
    return accounts;
  }

  return {
    kind: 'CUSTODY_D',
    capabilities: { choosesPaths: false },

    testConnection: async () => {
      const base = { providerType: 'CUSTODY_D', baseUrl: config.baseUrl };
      try {
        const health = await client.call('GET', '/v2/health', Health);
        return { success: true, message: 'CUSTODY_D accepted the credentials', details: { ...base, projectId: health.projectId } };
      } catch (error) {
        return failedConnection(error, base);
      }
    },

    createWallet: async ({ name, refId, network, accounts, idempotencyKey }) => {
      const walletName = refId ?? name;
      const specs = accounts.length > 0 ? accounts : [undefined];
      const created = [];
      for (const [i, spec] of specs.entries()) {
        created.push(await createIn(walletName, spec, network, idempotencyKey ? `${idempotencyKey}:${i}` : undefined));
      }
      const first = created[0];
      if (!first) throw new ProviderError('CUSTODY_D', 'malformed_response', undefined, 'no account created');
      return { walletId: walletName, accounts: created.map(toAccount), createdAt: vendorDate('CUSTODY_D', first.createdAt) };
    },

    createAccounts: async ({ walletId, accounts, network }) => {
      const created: WalletAccount[] = [];
      for (const spec of accounts) created.push(toAccount(await createIn(walletId, spec, network)));
      return created;
    },

    listAccounts: async ({ walletId }) => (await listNamed(walletId)).map(toAccount),

    getBalances: async ({ walletId, network }): Promise<ProviderBalance[]> => {
      const format = formatOfNetwork(network);
      const accounts = (await listNamed(walletId)).map(toAccount).filter((a) => a.addressFormat === format);
      const entries: ProviderBalance[] = [];
      for (const account of accounts) {
        const query = new URLSearchParams({ network });
        const { balances } = await client.call('GET', `/v2/accounts/${encodeURIComponent(account.address)}/balances?${query}`, Balances);
        const native = balances.find((b) => b.token.contractAddress === null);
        entries.push({
          address: account.address,
          network,
          nativeBalance: native ? unitsToDecimal(BigInt(native.amount.value), native.amount.decimals) : '0',
          nativeSymbol: native?.token.symbol ?? (format === 'ADDRESS_FORMAT_SOLANA' ? 'SOL' : 'ETH'),
          tokens: balances
            .filter((b) => b.token.contractAddress !== null)
            .map((b) => ({
              symbol: b.token.symbol,
              balance: unitsToDecimal(BigInt(b.amount.value), b.amount.decimals),
              contractAddress: b.token.contractAddress as string,
            })),
        });
      }
      return entries;
    },
  };
}
