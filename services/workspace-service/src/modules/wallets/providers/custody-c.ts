import type { CustodyCConfig, WalletAccount, WalletAccountSpec } from '@holdfast/contracts';
import { hmacSha256 } from '@holdfast/secrets';
import { Type } from '@sinclair/typebox';
import { type Hex, hashMessage, stringToHex } from 'viem';
import { failedConnection, ProviderError, type WalletProviderAdapter } from './adapter.js';
import { type VendorAdapterDeps, vendorAccount } from './vendor-common.js';
import { createVendorClient } from './vendor-http.js';

/*
 * CUSTODY_C: an organization's HD wallets, deriving exactly the paths asked for (docs/wallets.md, "CUSTODY_C").
 *   auth     X-Stamp: base64url(JSON {publicKey: apiPublicKey, scheme: "SIGNATURE_SCHEME_HMAC_SHA256",
 *                                    signature: hex HMAC-SHA256(apiPrivateKey, body)})
 *   every call is POST with a JSON body naming organizationId:
 *   /public/v1/query/whoami                  {organizationId}                -> {organizationId, organizationName, userId}
 *   /public/v1/submit/create_wallet          {organizationId, walletName, accounts: [Account]} -> {walletId, addresses: [string]}
 *   /public/v1/submit/create_wallet_accounts {organizationId, walletId, accounts: [Account]}   -> {walletId, addresses: [string]}
 *   /public/v1/query/list_wallet_accounts    {organizationId, walletId}      -> {accounts: [{walletId, address, addressFormat, curve, path}]}
 *   /public/v1/submit/sign_raw_payload       {organizationId, signWith, payload, encoding, hashFunction} -> {r, s, v}
 *   Account  {curve, pathFormat: "PATH_FORMAT_BIP32", path, addressFormat}
 *   errors   {code: number, message: string}
 */

const WhoAmI = Type.Object({ organizationId: Type.String(), organizationName: Type.String(), userId: Type.String() });
const Created = Type.Object({ walletId: Type.String({ minLength: 1 }), addresses: Type.Array(Type.String()) });
const Listed = Type.Object({
  accounts: Type.Array(
    Type.Object({
      walletId: Type.String(),
      address: Type.String(),
      addressFormat: Type.Union([Type.Literal('ADDRESS_FORMAT_ETHEREUM'), Type.Literal('ADDRESS_FORMAT_SOLANA')]),
      curve: Type.String(),
      path: Type.String(),
    }),
  ),
});
const Signature = Type.Object({
  r: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
  s: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
  v: Type.String({ pattern: '^[0-9a-fA-F]{2}$' }),
});

export function createCustodyCAdapter(config: CustodyCConfig, deps: VendorAdapterDeps): WalletProviderAdapter {
  const client = createVendorClient({
    provider: 'CUSTODY_C',
    baseUrl: config.baseUrl,
    timeoutMs: deps.timeoutMs,
    dispatcher: deps.dispatcher,
    authenticate: ({ body }) => {
      const stamp = {
        publicKey: config.apiPublicKey,
        scheme: 'SIGNATURE_SCHEME_HMAC_SHA256',
        signature: hmacSha256(config.apiPrivateKey, body ?? ''),
      };
      return { 'x-stamp': Buffer.from(JSON.stringify(stamp), 'utf8').toString('base64url') };
    },
    errorMessage: (body) => (body as { message?: unknown })?.message as string | undefined,
  });
  const organizationId = config.organizationId;
  const vendorSpec = (spec: WalletAccountSpec) => ({
    curve: spec.curve,
    pathFormat: 'PATH_FORMAT_BIP32',
    path: spec.path,
    addressFormat: spec.addressFormat,
  });

  /** C answers one address per requested account, in order. */
  function zip(specs: WalletAccountSpec[], addresses: string[]): WalletAccount[] {
    if (addresses.length !== specs.length) {
      throw new ProviderError('CUSTODY_C', 'malformed_response', undefined, `asked for ${specs.length} accounts, got ${addresses.length}`);
    }
    return specs.map((spec, i) => vendorAccount('CUSTODY_C', addresses[i] as string, spec.addressFormat, spec.path));
  }

  async function listAccounts({ walletId }: { walletId: string }): Promise<WalletAccount[]> {
    const { accounts } = await client.call('POST', '/public/v1/query/list_wallet_accounts', Listed, { organizationId, walletId });
    return accounts.map((a) => vendorAccount('CUSTODY_C', a.address, a.addressFormat, a.path));
  }

  return {
    kind: 'CUSTODY_C',
    capabilities: { choosesPaths: true },

    testConnection: async () => {
      const base = { providerType: 'CUSTODY_C', baseUrl: config.baseUrl, organizationId };
      try {
        const me = await client.call('POST', '/public/v1/query/whoami', WhoAmI, { organizationId });
        if (me.organizationId !== organizationId) {
          throw new ProviderError('CUSTODY_C', 'unauthorized', undefined, 'the key belongs to another organization');
        }
        return {
          success: true,
          message: 'CUSTODY_C accepted the credentials',
          details: { ...base, organizationName: me.organizationName },
        };
      } catch (error) {
        return failedConnection(error, base);
      }
    },

    createWallet: async ({ name, accounts }) => {
      const created = await client.call('POST', '/public/v1/submit/create_wallet', Created, {
        organizationId,
        walletName: name,
        accounts: accounts.map(vendorSpec),
      });
      return { walletId: created.walletId, accounts: zip(accounts, created.addresses), createdAt: new Date().toISOString() };
    },

    createAccounts: async ({ walletId, accounts }) => {
      const created = await client.call('POST', '/public/v1/submit/create_wallet_accounts', Created, {
        organizationId,
        walletId,
        accounts: accounts.map(vendorSpec),
      });
      return zip(accounts, created.addresses);
    },

    listAccounts,

    signMessage: async ({ walletId, address, message }) => {
      const account = (await listAccounts({ walletId })).find((a) => a.address.toLowerCase() === address.toLowerCase());
      if (!account) throw new ProviderError('CUSTODY_C', 'not_found', undefined, 'no such account in the wallet');
      const ethereum = account.addressFormat === 'ADDRESS_FORMAT_ETHEREUM';
      const sig = await client.call('POST', '/public/v1/submit/sign_raw_payload', Signature, {
        organizationId,
        signWith: account.address,
        // Ethereum: the EIP-191 digest, signed as is; Solana: the message bytes (ed25519 hashes itself).
        payload: (ethereum ? hashMessage(message) : stringToHex(message)).slice(2),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: ethereum ? 'HASH_FUNCTION_NO_OP' : 'HASH_FUNCTION_NOT_APPLICABLE',
      });
      if (!ethereum) return `0x${sig.r}${sig.s}` as Hex;
      const v = (Number.parseInt(sig.v, 16) % 27) + 27;
      return `0x${sig.r}${sig.s}${v.toString(16)}` as Hex;
    },
  };
}
