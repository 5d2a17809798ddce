import { randomUUID } from 'node:crypto';
import { AppError } from '@holdfast/contracts';
import { freePort, rejectionOf } from '@holdfast/test-fixtures';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { hexToBytes, verifyMessage } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError, viaProvider, type WalletProviderAdapter } from '../../src/modules/wallets/providers/adapter.js';
import { createCustodyAAdapter } from '../../src/modules/wallets/providers/custody-a.js';
import { createCustodyBAdapter } from '../../src/modules/wallets/providers/custody-b.js';
import { createCustodyCAdapter } from '../../src/modules/wallets/providers/custody-c.js';
import { createCustodyDAdapter } from '../../src/modules/wallets/providers/custody-d.js';
import { startCustodyA, startCustodyB, startCustodyC, startCustodyD, type VendorMode } from '../support/vendors.js';

// Contract tests of each custody adapter against a local stand-in that honours the vendor's
// documented shapes (docs/wallets.md): the happy paths, and every way a vendor fails.

const deps = { timeoutMs: 400, appEnv: 'local' as const };
const eth = { addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" } as const;
const sol = { addressFormat: 'ADDRESS_FORMAT_SOLANA', curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" } as const;

let a: Awaited<ReturnType<typeof startCustodyA>>;
let b: Awaited<ReturnType<typeof startCustodyB>>;
let c: Awaited<ReturnType<typeof startCustodyC>>;
let d: Awaited<ReturnType<typeof startCustodyD>>;

beforeAll(async () => {
  [a, b, c, d] = await Promise.all([startCustodyA(), startCustodyB(), startCustodyC(), startCustodyD()]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), c?.stop(), d?.stop()]);
});
beforeEach(() => {
  for (const vendor of [a, b, c, d]) {
    vendor.mode = 'ok';
    vendor.override = undefined;
  }
});

const failure = (promise: Promise<unknown>) => rejectionOf(promise, ProviderError);

describe('CUSTODY_A (bearer, wallet sets)', () => {
  const adapter = () => createCustodyAAdapter(a.config, a.walletSetId, deps);

  it('tests the connection with the bearer key', async () => {
    expect(await adapter().testConnection()).toEqual({
      success: true,
      message: 'CUSTODY_A accepted the credentials',
      details: { providerType: 'CUSTODY_A', baseUrl: a.url, appId: 'app_1' },
    });
    expect(a.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/v1/config/entity',
      headers: { authorization: `Bearer ${a.config.apiKey}` },
    });
  });

  it('creates a wallet for a customer on the requested blockchain, once per idempotency key', async () => {
    const refId = randomUUID();
    const wallet = await adapter().createWallet({ name: 'customer', refId, network: 'base-sepolia', accounts: [], idempotencyKey: refId });
    expect(wallet).toEqual({
      walletId: expect.any(String),
      accounts: [
        {
          address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
          curve: 'CURVE_SECP256K1',
          path: null,
        },
      ],
      createdAt: expect.any(String),
    });
    expect(a.requests.at(-1)?.json).toEqual({
      idempotencyKey: refId,
      walletSetId: a.walletSetId,
      blockchains: ['BASE-SEPOLIA'],
      count: 1,
      refId,
    });
    const again = await adapter().createWallet({ name: 'customer', refId, network: 'base-sepolia', accounts: [], idempotencyKey: refId });
    expect(again.walletId).toBe(wallet.walletId);
  });

  it('adds accounts to the wallet set and lists them', async () => {
    const created = await adapter().createAccounts({ walletId: a.walletSetId, accounts: [eth, sol] });
    expect(created.map((x) => x.addressFormat)).toEqual(['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_SOLANA']);
    expect(a.requests.at(-1)?.json).toMatchObject({ blockchains: ['SOL-DEVNET'] });
    const listed = await adapter().listAccounts({ walletId: a.walletSetId });
    expect(listed).toEqual(expect.arrayContaining(created));
    expect(a.requests.at(-1)?.url.searchParams.get('walletSetId')).toBe(a.walletSetId);
  });

  it('reads balances with native and token amounts as decimal strings', async () => {
    const wallet = await adapter().createWallet({ name: 'x', network: 'base-sepolia', accounts: [] });
    a.balances.set(wallet.walletId, [
      { token: { symbol: 'ETH-SEPOLIA', isNative: true, tokenAddress: null }, amount: '0.25' },
      { token: { symbol: 'USDC', isNative: false, tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }, amount: '12.500001' },
    ]);
    expect(await adapter().getBalances?.({ walletId: wallet.walletId, network: 'base-sepolia' })).toEqual([
      {
        address: wallet.accounts[0]?.address,
        network: 'base-sepolia',
        nativeBalance: '0.25',
        nativeSymbol: 'ETH-SEPOLIA',
        tokens: [{ symbol: 'USDC', balance: '12.500001', contractAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }],
      },
    ]);
  });

  it('refuses to create without a wallet set', async () => {
    const error = await createCustodyAAdapter(a.config, null, deps)
      .createWallet({ name: 'x', accounts: [] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'WALLET_PROVIDER_NOT_CONFIGURED', statusCode: 400 });
  });

  it('reports a 401, a timeout, a malformed answer, a vendor error and an unknown wallet', async () => {
    a.mode = 'unauthorized';
    const error = await failure(adapter().listAccounts({ walletId: a.walletSetId }));
    expect(error.details).toEqual({
      provider: 'CUSTODY_A',
      reason: 'unauthorized',
      vendorStatus: 401,
      vendorMessage: 'Malformed authorization. Is the API key correctly formatted?',
    });
    a.mode = 'hang';
    expect((await failure(adapter().listAccounts({ walletId: a.walletSetId }))).reason).toBe('timeout');
    a.mode = 'malformed';
    expect((await failure(adapter().listAccounts({ walletId: a.walletSetId }))).reason).toBe('malformed_response');
    a.mode = 'server_error';
    expect((await failure(adapter().listAccounts({ walletId: a.walletSetId }))).details).toMatchObject({
      reason: 'vendor_error',
      vendorStatus: 503,
    });
    a.mode = 'ok';
    expect((await failure(adapter().getBalances!({ walletId: 'nope', network: 'base-sepolia' }))).reason).toBe('not_found');
  });

  it('treats a documented shape with nonsense in it as a malformed answer', async () => {
    const wallet = {
      id: 'w1',
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      blockchain: 'BASE-SEPOLIA',
      walletSetId: a.walletSetId,
      state: 'LIVE',
    };
    a.override = (req) =>
      req.method === 'POST' ? { status: 201, body: { data: { wallets: [{ ...wallet, createDate: 'yesterday' }] } } } : undefined;
    expect((await failure(adapter().createWallet({ name: 'x', accounts: [] }))).details).toMatchObject({
      reason: 'malformed_response',
      vendorMessage: 'not a timestamp',
    });
    a.override = (req) => (req.method === 'POST' ? { status: 201, body: { data: { wallets: [] } } } : undefined);
    expect((await failure(adapter().createWallet({ name: 'x', accounts: [] }))).reason).toBe('malformed_response');
    a.override = (req) =>
      req.method === 'POST'
        ? { status: 201, body: { data: { wallets: [{ ...wallet, blockchain: 'DOGE', createDate: '2026-11-22T10:00:00Z' }] } } }
        : undefined;
    expect((await failure(adapter().createWallet({ name: 'x', accounts: [] }))).reason).toBe('malformed_response');
    a.override = () => ({
      status: 200,
      body: {
        data: {
          walletId: 'w1',
          address: wallet.address,
          blockchain: 'BASE-SEPOLIA',
          tokenBalances: [{ token: { symbol: 'USDC', isNative: false, tokenAddress: null }, amount: '1e3' }],
        },
      },
    });
    expect((await failure(adapter().getBalances!({ walletId: 'w1', network: 'base-sepolia' }))).reason).toBe('malformed_response');
  });

  it('treats an address that is not one as a malformed answer', async () => {
    a.wallets.push({
      id: 'bad',
      address: 'not-an-address',
      blockchain: 'BASE-SEPOLIA',
      walletSetId: 'ws_bad',
      refId: null,
      state: 'LIVE',
      createDate: '',
    });
    expect((await failure(adapter().listAccounts({ walletId: 'ws_bad' }))).reason).toBe('malformed_response');
  });
});

describe('CUSTODY_B (API key + HMAC signature, vaults)', () => {
  const adapter = () => createCustodyBAdapter(b.config, deps);

  it('signs every request so the vendor accepts it, and creates vaults with addresses', async () => {
    expect((await adapter().testConnection()).success).toBe(true);
    const wallet = await adapter().createWallet({ name: 'treasury', refId: 'cust_1', accounts: [eth, sol] });
    expect(wallet.accounts).toEqual([
      expect.objectContaining({ addressFormat: 'ADDRESS_FORMAT_ETHEREUM', path: "m/44'/60'/0'/0/0" }),
      expect.objectContaining({ addressFormat: 'ADDRESS_FORMAT_SOLANA', path: "m/44'/501'/0'/0'" }),
    ]);
    const more = await adapter().createAccounts({ walletId: wallet.walletId, accounts: [eth] });
    expect(more[0]?.path).toBe("m/44'/60'/0'/0/1");
    expect(await adapter().listAccounts({ walletId: wallet.walletId })).toEqual([...wallet.accounts, ...more]);
    const vault = b.requests.find((r) => r.path === '/api/v1/vaults' && r.method === 'POST');
    expect(vault?.json).toMatchObject({ name: 'treasury', customerRefId: 'cust_1', idempotencyKey: expect.any(String) });
  });

  it('groups balances per address for the network', async () => {
    const wallet = await adapter().createWallet({ name: 'bal', accounts: [eth] });
    const address = wallet.accounts[0]!.address;
    b.balances.set(wallet.walletId, [
      { address, network: 'base-sepolia', asset: { symbol: 'ETH', contractAddress: null, native: true }, available: '1.5' },
      { address, network: 'base-sepolia', asset: { symbol: 'USDC', contractAddress: '0xabc', native: false }, available: '10' },
      { address, network: 'ethereum-sepolia', asset: { symbol: 'ETH', contractAddress: null, native: true }, available: '9' },
    ]);
    expect(await adapter().getBalances?.({ walletId: wallet.walletId, network: 'base-sepolia' })).toEqual([
      {
        address,
        network: 'base-sepolia',
        nativeBalance: '1.5',
        nativeSymbol: 'ETH',
        tokens: [{ symbol: 'USDC', balance: '10', contractAddress: '0xabc' }],
      },
    ]);
  });

  it('fails clearly with a wrong secret', async () => {
    const wrong = createCustodyBAdapter({ ...b.config, apiSecret: 'not-the-secret-at-all' }, deps);
    const result = await wrong.testConnection();
    expect(result).toMatchObject({
      success: false,
      details: { reason: 'unauthorized', vendorStatus: 401, vendorMessage: 'invalid signature' },
    });
    expect(JSON.stringify(result)).not.toContain('not-the-secret-at-all');
  });
});

describe('CUSTODY_C (request stamps, exact derivation paths, signing)', () => {
  const adapter = () => createCustodyCAdapter(c.config, deps);

  it('creates a wallet with exactly the requested paths and lists them', async () => {
    expect(await adapter().testConnection()).toMatchObject({ success: true, details: { organizationName: 'Acme custody' } });
    const wallet = await adapter().createWallet({ name: 'ops', accounts: [eth, sol] });
    expect(wallet.accounts).toEqual([
      { address: expect.stringMatching(/^0x/), addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: eth.path },
      { address: expect.any(String), addressFormat: 'ADDRESS_FORMAT_SOLANA', curve: 'CURVE_ED25519', path: sol.path },
    ]);
    expect(c.requests.at(-1)?.json).toEqual({
      organizationId: c.config.organizationId,
      walletName: 'ops',
      accounts: [
        { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: eth.path, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
        { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: sol.path, addressFormat: 'ADDRESS_FORMAT_SOLANA' },
      ],
    });
    const second = await adapter().createAccounts({ walletId: wallet.walletId, accounts: [{ ...eth, path: "m/44'/60'/0'/0/1" }] });
    expect(await adapter().listAccounts({ walletId: wallet.walletId })).toEqual([...wallet.accounts, ...second]);
  });

  it('signs messages that verify against the account address', async () => {
    const wallet = await adapter().createWallet({ name: 'signer', accounts: [eth, sol] });
    const [evm, solana] = wallet.accounts;
    const signature = await adapter().signMessage!({ walletId: wallet.walletId, address: evm!.address, message: 'hello holdfast' });
    expect(await verifyMessage({ address: evm!.address as `0x${string}`, message: 'hello holdfast', signature })).toBe(true);
    const solSig = await adapter().signMessage!({ walletId: wallet.walletId, address: solana!.address, message: 'hello solana' });
    expect(ed25519.verify(hexToBytes(solSig), new TextEncoder().encode('hello solana'), base58.decode(solana!.address))).toBe(true);
  });

  it('treats a wrong number of addresses as a malformed answer', async () => {
    c.override = (req) =>
      req.url.pathname === '/public/v1/submit/create_wallet' ? { status: 200, body: { walletId: 'w', addresses: [] } } : undefined;
    const error = await failure(adapter().createWallet({ name: 'x', accounts: [eth] }));
    expect(error.details).toMatchObject({ reason: 'malformed_response', vendorMessage: 'asked for 1 accounts, got 0' });
  });

  it('refuses a key of another organization and a bad stamp', async () => {
    const other = createCustodyCAdapter({ ...c.config, organizationId: 'org_other' }, deps);
    expect(await other.testConnection()).toMatchObject({ success: false, details: { reason: 'unauthorized', vendorStatus: 403 } });
    const badStamp = createCustodyCAdapter({ ...c.config, apiPrivateKey: 'wrong-private-key' }, deps);
    expect(await badStamp.testConnection()).toMatchObject({ success: false, details: { reason: 'unauthorized', vendorStatus: 401 } });
  });
});

describe('CUSTODY_D (basic auth, named accounts)', () => {
  const adapter = () => createCustodyDAdapter(d.config, deps);

  it('creates named accounts and lists them across pages', async () => {
    expect(await adapter().testConnection()).toMatchObject({ success: true, details: { projectId: 'proj_1' } });
    const wallet = await adapter().createWallet({ name: 'fallback', refId: 'cust_42', accounts: [eth], network: 'base-sepolia' });
    expect(wallet.walletId).toBe('cust_42');
    await adapter().createAccounts({ walletId: 'cust_42', accounts: [eth, eth, sol, eth] });
    const listed = await adapter().listAccounts({ walletId: 'cust_42' });
    expect(listed).toHaveLength(5);
    expect(listed.filter((x) => x.addressFormat === 'ADDRESS_FORMAT_SOLANA')).toHaveLength(1);
    expect(d.requests.filter((r) => r.url.pathname === '/v2/accounts' && r.method === 'GET').length).toBeGreaterThanOrEqual(3);
  });

  it('converts integer amounts in smallest units to exact decimals', async () => {
    const wallet = await adapter().createWallet({ name: 'bal', refId: `r_${randomUUID()}`, accounts: [eth] });
    const address = wallet.accounts[0]!.address;
    d.balances.set(address, [
      { token: { symbol: 'ETH', contractAddress: null, decimals: 18 }, amount: { value: '1500000000000000001', decimals: 18 } },
      { token: { symbol: 'USDC', contractAddress: '0xusdc', decimals: 6 }, amount: { value: '2500000', decimals: 6 } },
    ]);
    expect(await adapter().getBalances?.({ walletId: wallet.walletId, network: 'base-sepolia' })).toEqual([
      {
        address,
        network: 'base-sepolia',
        nativeBalance: '1.500000000000000001',
        nativeSymbol: 'ETH',
        tokens: [{ symbol: 'USDC', balance: '2.5', contractAddress: '0xusdc' }],
      },
    ]);
  });

  it.each(['unauthorized', 'hang', 'malformed'] as VendorMode[])('fails as a ProviderError when the vendor is %s', async (mode) => {
    d.mode = mode;
    const error = await failure(adapter().listAccounts({ walletId: 'x' }));
    expect(error.reason).toBe(mode === 'hang' ? 'timeout' : mode === 'malformed' ? 'malformed_response' : 'unauthorized');
  });
});

describe('every adapter, as the API sees a failure', () => {
  it('turns a provider failure into WALLET_PROVIDER_ERROR (502), never an unexplained 500', async () => {
    a.mode = 'unauthorized';
    const error = await viaProvider(() =>
      createCustodyAAdapter(a.config, a.walletSetId, deps).listAccounts({ walletId: a.walletSetId }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).toObject()).toEqual({
      code: 'WALLET_PROVIDER_ERROR',
      message: 'CUSTODY_A refused our credentials (HTTP 401): Malformed authorization. Is the API key correctly formatted?',
      statusCode: 502,
      details: {
        provider: 'CUSTODY_A',
        reason: 'unauthorized',
        vendorStatus: 401,
        vendorMessage: 'Malformed authorization. Is the API key correctly formatted?',
      },
    });
  });

  it('reports a vendor nobody listens for as unreachable', async () => {
    const port = await freePort();
    const adapters: WalletProviderAdapter[] = [
      createCustodyAAdapter({ ...a.config, baseUrl: `http://127.0.0.1:${port}` }, 'ws', deps),
      createCustodyBAdapter({ ...b.config, baseUrl: `http://127.0.0.1:${port}` }, deps),
      createCustodyCAdapter({ ...c.config, baseUrl: `http://127.0.0.1:${port}` }, deps),
      createCustodyDAdapter({ ...d.config, baseUrl: `http://127.0.0.1:${port}` }, deps),
    ];
    for (const adapter of adapters) {
      expect(await adapter.testConnection()).toMatchObject({ success: false, details: { reason: 'unreachable' } });
    }
  });
});
