import { randomBytes, randomUUID } from 'node:crypto';
import type { CustodyAConfig, CustodyBConfig, CustodyCConfig, CustodyDConfig } from '@holdfast/contracts';
import { hmacSha256 } from '@holdfast/secrets';
import { type StandIn, type StandInAnswer, type StandInRequest, startStandIn } from '@holdfast/test-fixtures';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { type Hex, hexToBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';

// Local stand-ins for the four custody vendors, honouring the request and answer shapes
// docs/wallets.md documents (and the adapters' header comments repeat). Each checks the vendor's
// authentication exactly and can be switched into a failure mode.

export type VendorMode = 'ok' | 'unauthorized' | 'hang' | 'malformed' | 'server_error';

export interface VendorStandIn<C> extends StandIn {
  config: C;
  mode: VendorMode;
  /** An answer that replaces the documented one for the requests it returns one for (misbehaving vendors). */
  override: ((req: StandInRequest) => StandInAnswer | undefined) | undefined;
}

function evmAddress(): string {
  return privateKeyToAccount(generatePrivateKey()).address;
}

function solanaAddress(): string {
  return base58.encode(randomBytes(32));
}

/** The failure every vendor answers in a failure mode, before routing. */
function failure(mode: VendorMode, unauthorized: StandInAnswer): StandInAnswer | undefined {
  if (mode === 'unauthorized') return unauthorized;
  if (mode === 'hang') return { status: 200, hang: true };
  if (mode === 'malformed') return { status: 200, body: '<html>gateway</html>' };
  if (mode === 'server_error') return { status: 503, body: { message: 'maintenance' } };
  return undefined;
}

async function withMode<C>(
  config: Omit<C, 'baseUrl'>,
  route: (req: StandInRequest, self: VendorStandIn<C>) => StandInAnswer | Promise<StandInAnswer>,
  authorized: (req: StandInRequest) => boolean,
  unauthorized: StandInAnswer,
): Promise<VendorStandIn<C>> {
  const self = {} as VendorStandIn<C>;
  const standIn = await startStandIn((req) => {
    const failed = failure(self.mode, unauthorized);
    if (failed) return failed;
    if (!authorized(req)) return unauthorized;
    return self.override?.(req) ?? route(req, self);
  });
  return Object.assign(self, standIn, { config: { ...config, baseUrl: standIn.url } as C, mode: 'ok' as VendorMode, override: undefined });
}

/* ------------------------------------------------------------------ CUSTODY_A */

export interface AWallet {
  id: string;
  address: string;
  blockchain: string;
  walletSetId: string;
  refId: string | null;
  state: string;
  createDate: string;
}

export async function startCustodyA(walletSetId = 'ws_main') {
  const wallets: AWallet[] = [];
  const byIdempotencyKey = new Map<string, AWallet>();
  const balances = new Map<string, { token: { symbol: string; isNative: boolean; tokenAddress: string | null }; amount: string }[]>();
  const apiKey = `a_live_${randomUUID()}`;
  const standIn = await withMode<CustodyAConfig>(
    { apiKey },
    (req) => {
      const url = req.url;
      if (req.method === 'GET' && url.pathname === '/v1/config/entity') return { status: 200, body: { data: { appId: 'app_1' } } };
      if (req.method === 'POST' && url.pathname === '/v1/wallets') {
        const body = req.json as { idempotencyKey: string; walletSetId: string; blockchains: string[]; count: number; refId?: string };
        if (body.walletSetId !== walletSetId) return { status: 404, body: { code: 156001, message: 'wallet set not found' } };
        const existing = byIdempotencyKey.get(body.idempotencyKey);
        if (existing) return { status: 201, body: { data: { wallets: [existing] } } };
        const blockchain = body.blockchains[0] ?? 'ETH';
        const wallet: AWallet = {
          id: randomUUID(),
          address: blockchain.startsWith('SOL') ? solanaAddress() : evmAddress(),
          blockchain,
          walletSetId,
          refId: body.refId ?? null,
          state: 'LIVE',
          createDate: new Date().toISOString(),
        };
        wallets.push(wallet);
        byIdempotencyKey.set(body.idempotencyKey, wallet);
        return { status: 201, body: { data: { wallets: [wallet] } } };
      }
      if (req.method === 'GET' && url.pathname === '/v1/wallets') {
        const set = wallets.filter((w) => w.walletSetId === url.searchParams.get('walletSetId'));
        const size = Number(url.searchParams.get('pageSize') ?? 50);
        const after = url.searchParams.get('pageAfter');
        const start = after ? set.findIndex((w) => w.id === after) + 1 : 0;
        return { status: 200, body: { data: { wallets: set.slice(start, start + size) } } };
      }
      const balance = /^\/v1\/wallets\/([^/]+)\/balances$/.exec(url.pathname);
      if (req.method === 'GET' && balance) {
        const wallet = wallets.find((w) => w.id === balance[1]);
        if (!wallet) return { status: 404, body: { code: 156004, message: 'wallet not found' } };
        return {
          status: 200,
          body: {
            data: {
              walletId: wallet.id,
              address: wallet.address,
              blockchain: wallet.blockchain,
              tokenBalances: balances.get(wallet.id) ?? [],
            },
          },
        };
      }
      return { status: 404, body: { code: 404, message: 'no such route' } };
    },
    (req) => req.headers.authorization === `Bearer ${apiKey}`,
    { status: 401, body: { code: 401, message: 'Malformed authorization. Is the API key correctly formatted?' } },
  );
  return Object.assign(standIn, { wallets, balances, walletSetId });
}

/* ------------------------------------------------------------------ CUSTODY_B */

export async function startCustodyB() {
  const apiKey = `b_key_${randomUUID()}`;
  const apiSecret = `b_secret_${randomUUID()}`;
  const vaults: { id: string; name: string; createdAt: string; customerRefId?: string }[] = [];
  const addresses = new Map<string, { address: string; assetType: 'EVM' | 'SOLANA'; derivationPath: string }[]>();
  const balances = new Map<
    string,
    { address: string; network: string; asset: { symbol: string; contractAddress: string | null; native: boolean }; available: string }[]
  >();
  const standIn = await withMode<CustodyBConfig>(
    { apiKey, apiSecret },
    (req) => {
      const url = req.url;
      if (req.method === 'GET' && url.pathname === '/api/v1/vaults')
        return { status: 200, body: { vaults: vaults.slice(0, Number(url.searchParams.get('limit') ?? 50)) } };
      if (req.method === 'POST' && url.pathname === '/api/v1/vaults') {
        const body = req.json as { name: string; customerRefId?: string };
        const vault = {
          id: `vault_${vaults.length + 1}`,
          name: body.name,
          createdAt: new Date().toISOString(),
          ...(body.customerRefId ? { customerRefId: body.customerRefId } : {}),
        };
        vaults.push(vault);
        addresses.set(vault.id, []);
        return { status: 201, body: vault };
      }
      const match = /^\/api\/v1\/vaults\/([^/]+)\/(addresses|balances)$/.exec(url.pathname);
      const list = match ? addresses.get(match[1] as string) : undefined;
      if (!match || !list) return { status: 404, body: { error: { code: 'not_found', message: 'vault not found' } } };
      if (match[2] === 'addresses' && req.method === 'POST') {
        const { assetType } = req.json as { assetType: 'EVM' | 'SOLANA' };
        const n = list.filter((a) => a.assetType === assetType).length;
        const entry = {
          address: assetType === 'EVM' ? evmAddress() : solanaAddress(),
          assetType,
          derivationPath: assetType === 'EVM' ? `m/44'/60'/0'/0/${n}` : `m/44'/501'/${n}'/0'`,
        };
        list.push(entry);
        return { status: 201, body: entry };
      }
      if (match[2] === 'addresses') return { status: 200, body: { addresses: list } };
      return { status: 200, body: { balances: balances.get(match[1] as string) ?? [] } };
    },
    (req) => {
      const timestamp = String(req.headers['x-timestamp'] ?? '');
      return (
        req.headers['x-api-key'] === apiKey &&
        req.headers['x-signature'] === hmacSha256(apiSecret, `${timestamp}${req.method}${req.path}${req.body}`)
      );
    },
    { status: 401, body: { error: { code: 'unauthorized', message: 'invalid signature' } } },
  );
  return Object.assign(standIn, { vaults, addresses, balances });
}

/* ------------------------------------------------------------------ CUSTODY_C */

interface CAccount {
  walletId: string;
  address: string;
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM' | 'ADDRESS_FORMAT_SOLANA';
  curve: string;
  path: string;
  privateKey: Hex;
}

export async function startCustodyC(organizationId = 'org_1') {
  const apiPublicKey = `c_pub_${randomUUID()}`;
  const apiPrivateKey = `c_priv_${randomUUID()}`;
  const accounts: CAccount[] = [];
  const create = (walletId: string, specs: { curve: string; path: string; addressFormat: CAccount['addressFormat'] }[]) =>
    specs.map((spec) => {
      const existing = accounts.find((a) => a.walletId === walletId && a.path === spec.path && a.addressFormat === spec.addressFormat);
      if (existing) return existing.address;
      const privateKey = generatePrivateKey();
      const address =
        spec.addressFormat === 'ADDRESS_FORMAT_ETHEREUM'
          ? privateKeyToAccount(privateKey).address
          : base58.encode(ed25519.getPublicKey(hexToBytes(privateKey)));
      accounts.push({ walletId, address, addressFormat: spec.addressFormat, curve: spec.curve, path: spec.path, privateKey });
      return address;
    });
  const standIn = await withMode<CustodyCConfig>(
    { organizationId, apiPublicKey, apiPrivateKey },
    (req) => {
      const body = req.json as Record<string, unknown>;
      if (req.method !== 'POST') return { status: 405, body: { code: 12, message: 'method not allowed' } };
      if (body.organizationId !== organizationId) return { status: 403, body: { code: 7, message: 'organization mismatch' } };
      switch (req.url.pathname) {
        case '/public/v1/query/whoami':
          return { status: 200, body: { organizationId, organizationName: 'Acme custody', userId: 'user_1' } };
        case '/public/v1/submit/create_wallet': {
          const walletId = `wallet_${randomUUID()}`;
          return { status: 200, body: { walletId, addresses: create(walletId, body.accounts as never) } };
        }
        case '/public/v1/submit/create_wallet_accounts': {
          const walletId = body.walletId as string;
          if (!accounts.some((a) => a.walletId === walletId)) return { status: 404, body: { code: 5, message: 'wallet not found' } };
          return { status: 200, body: { walletId, addresses: create(walletId, body.accounts as never) } };
        }
        case '/public/v1/query/list_wallet_accounts':
          return {
            status: 200,
            body: { accounts: accounts.filter((a) => a.walletId === body.walletId).map(({ privateKey: _hidden, ...a }) => a) },
          };
        case '/public/v1/submit/sign_raw_payload': {
          const account = accounts.find((a) => a.address === body.signWith);
          if (!account) return { status: 404, body: { code: 5, message: 'no such account' } };
          const payload = `0x${body.payload as string}` as Hex;
          if (account.addressFormat === 'ADDRESS_FORMAT_SOLANA') {
            const sig = ed25519.sign(hexToBytes(payload), hexToBytes(account.privateKey));
            const hex = Buffer.from(sig).toString('hex');
            return { status: 200, body: { r: hex.slice(0, 64), s: hex.slice(64), v: '00' } };
          }
          return sign({ hash: payload, privateKey: account.privateKey }).then((s) => ({
            status: 200,
            body: {
              r: s.r.slice(2).padStart(64, '0'),
              s: s.s.slice(2).padStart(64, '0'),
              v: (s.yParity ?? 0).toString(16).padStart(2, '0'),
            },
          }));
        }
        default:
          return { status: 404, body: { code: 5, message: 'no such route' } };
      }
    },
    (req) => {
      try {
        const stamp = JSON.parse(Buffer.from(String(req.headers['x-stamp'] ?? ''), 'base64url').toString('utf8')) as Record<string, string>;
        return (
          stamp.publicKey === apiPublicKey &&
          stamp.scheme === 'SIGNATURE_SCHEME_HMAC_SHA256' &&
          stamp.signature === hmacSha256(apiPrivateKey, req.body)
        );
      } catch {
        return false;
      }
    },
    { status: 401, body: { code: 16, message: 'could not verify the request stamp' } },
  );
  return Object.assign(standIn, { accounts });
}

/* ------------------------------------------------------------------ CUSTODY_D */

interface DAccount {
  id: string;
  address: string;
  type: 'evm' | 'solana';
  network: string;
  name: string;
  createdAt: string;
}

export async function startCustodyD(pageSize = 2) {
  const keyId = `d_key_${randomUUID()}`;
  const keySecret = `d_secret_${randomUUID()}`;
  const accounts: DAccount[] = [];
  const balances = new Map<
    string,
    { token: { symbol: string; contractAddress: string | null; decimals: number }; amount: { value: string; decimals: number } }[]
  >();
  const standIn = await withMode<CustodyDConfig>(
    { keyId, keySecret },
    (req) => {
      const url = req.url;
      if (req.method === 'GET' && url.pathname === '/v2/health') return { status: 200, body: { status: 'ok', projectId: 'proj_1' } };
      if (req.method === 'POST' && url.pathname === '/v2/accounts') {
        const body = req.json as { type: 'evm' | 'solana'; network: string; name: string };
        const account: DAccount = {
          id: randomUUID(),
          address: body.type === 'evm' ? evmAddress() : solanaAddress(),
          type: body.type,
          network: body.network,
          name: body.name,
          createdAt: new Date().toISOString(),
        };
        accounts.push(account);
        return { status: 201, body: { account } };
      }
      if (req.method === 'GET' && url.pathname === '/v2/accounts') {
        const named = accounts.filter((a) => a.name === url.searchParams.get('name'));
        const start = Number(url.searchParams.get('pageToken') ?? 0);
        const next = start + pageSize < named.length ? String(start + pageSize) : null;
        return { status: 200, body: { accounts: named.slice(start, start + pageSize), nextPageToken: next } };
      }
      const balance = /^\/v2\/accounts\/([^/]+)\/balances$/.exec(url.pathname);
      if (req.method === 'GET' && balance) return { status: 200, body: { balances: balances.get(balance[1] as string) ?? [] } };
      return { status: 404, body: { errorType: 'not_found', errorMessage: 'no such route' } };
    },
    (req) => req.headers.authorization === `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`,
    { status: 401, body: { errorType: 'unauthorized', errorMessage: 'invalid API key' } },
  );
  return Object.assign(standIn, { accounts, balances });
}
