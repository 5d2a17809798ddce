import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, type WalletProviderKind } from '@holdfast/contracts';
import { mockUsdcAbi } from '@holdfast/escrow';
import { createSecretBox } from '@holdfast/secrets';
import { type Anvil, freePort, rejectionOf, type StandIn, startAnvil, startStandIn, testLogger } from '@holdfast/test-fixtures';
import { type Address, encodeFunctionData, formatEther, parseEther, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletAccountService, type WalletAccountService } from '../../src/modules/wallets/accounts/service.js';
import { createBalanceReader } from '../../src/modules/wallets/balances/service.js';
import { createWalletProviderConfigRepository } from '../../src/modules/wallets/provider-configs/repository.js';
import { createWalletProviderConfigService, FULL_CONFIG_ACCESS } from '../../src/modules/wallets/provider-configs/service.js';
import { createPlatformAdapter } from '../../src/modules/wallets/providers/platform.js';
import { createPlatformWalletRepository } from '../../src/modules/wallets/providers/repository.js';
import { anvilClients } from '../support/chain.js';
import { auditRecorder, openTestDatabase, type TestDb } from '../support/db.js';
import { startSolanaRpc } from '../support/solana.js';
import { insertWorkspaces } from '../support/tenants.js';
import { startCustodyD } from '../support/vendors.js';

const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const eth0 = { addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" } as const;
const sol0 = { addressFormat: 'ADDRESS_FORMAT_SOLANA', curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" } as const;
const actor = { actorId: randomUUID() };
const audit = auditRecorder();

let db: TestDb;
let anvil: Anvil;
let solana: Awaited<ReturnType<typeof startSolanaRpc>>;
let vendorD: Awaited<ReturnType<typeof startCustodyD>>;
let hangingRpc: StandIn;
let htmlRpc: StandIn;
let usdc: Address;
const noCodeToken = '0x000000000000000000000000000000000000dEaD';
const providers = new Map<string, WalletProviderKind | null>();
let service: WalletAccountService;
let healthyOnly: WalletAccountService;
let platformFor: (workspaceId: string) => ReturnType<typeof createPlatformAdapter>;

const platformWorkspace = randomUUID();
const custodyWorkspace = randomUUID();
const bareWorkspace = randomUUID();

beforeAll(async () => {
  [db, anvil, solana, vendorD, hangingRpc, htmlRpc] = await Promise.all([
    openTestDatabase(),
    startAnvil(),
    startSolanaRpc(),
    startCustodyD(),
    startStandIn(() => ({ status: 200, hang: true })),
    startStandIn(() => ({ status: 200, body: '<html>502 Bad Gateway</html>' })),
  ]);
  usdc = (await anvilClients(anvil.rpcUrl).deployMockUsdc()).address;
  await insertWorkspaces(db.db, [platformWorkspace, custodyWorkspace, bareWorkspace]);
  const stopped = `http://127.0.0.1:${await freePort()}`;
  const secrets = createSecretBox(randomBytes(32));
  const logger = testLogger('balances');
  const configs = createWalletProviderConfigService({
    repository: createWalletProviderConfigRepository(db.db),
    secrets,
    audit: auditRecorder().sink,
    appEnv: 'local',
    vendor: { timeoutMs: 500, appEnv: 'local' },
    logger,
  });
  await configs.create(
    { workspaceId: custodyWorkspace, providerType: 'CUSTODY_D', providerName: 'D', config: vendorD.config, isDefault: true },
    FULL_CONFIG_ACCESS,
    actor,
  );
  providers.set(platformWorkspace, 'PLATFORM');
  providers.set(custodyWorkspace, 'CUSTODY_D');
  providers.set(bareWorkspace, null);
  const chainRpcUrls = { 'base-sepolia': anvil.rpcUrl };
  platformFor = (workspaceId) =>
    createPlatformAdapter({ workspaceId, repository: createPlatformWalletRepository(db.db), secrets, chainRpcUrls, rpcTimeoutMs: 5000 });
  const build = (evm: Record<string, string>) =>
    createWalletAccountService({
      workspaceWalletProvider: async (id) => providers.get(id) ?? null,
      configs,
      platform: platformFor,
      audit: audit.sink,
      transaction: (work) => db.db.transaction((tx) => work(tx)),
      balances: createBalanceReader({
        chainRpcUrls: evm,
        solanaRpcUrls: { 'solana-devnet': solana.url },
        tokenContracts: [
          { network: 'base-sepolia', symbol: 'MockUSDC', address: usdc },
          { network: 'base-sepolia', symbol: 'GONE', address: noCodeToken },
          { network: 'solana-devnet', symbol: 'USDC', address: DEVNET_USDC },
        ],
        timeoutMs: 500,
        logger,
      }),
    });
  service = build({
    ...chainRpcUrls,
    'ethereum-sepolia': stopped,
    'optimism-sepolia': hangingRpc.url,
    'arbitrum-sepolia': htmlRpc.url,
  });
  healthyOnly = build(chainRpcUrls);
});

afterAll(async () => {
  await Promise.all([db?.drop(), anvil?.stop(), solana?.stop(), vendorD?.stop(), hangingRpc?.stop(), htmlRpc?.stop()]);
});

const appError = (promise: Promise<unknown>) => rejectionOf(promise, AppError);

describe('wallet accounts of a PLATFORM workspace', () => {
  it('has none before the first creation', async () => {
    expect(await service.listAccounts(platformWorkspace)).toEqual({
      accounts: [],
      message: 'No accounts yet: create them with POST /workspaces/{id}/wallet-accounts',
    });
    expect(await service.getBalances(platformWorkspace)).toEqual({ balances: [], warnings: [] });
  });

  it('refuses specs it cannot derive and creates nothing', async () => {
    const error = await appError(
      service.createAccounts(
        platformWorkspace,
        { accounts: [eth0, { ...eth0, curve: 'CURVE_ED25519' }, { ...sol0, path: "m/44'/501'/0'/0" }] },
        actor,
      ),
    );
    expect(error.toObject()).toMatchObject({
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: {
        errors: [
          { field: 'accounts.1.curve', reason: 'ADDRESS_FORMAT_ETHEREUM is derived on CURVE_SECP256K1, not CURVE_ED25519' },
          { field: 'accounts.2.path', reason: expect.stringContaining('hardened') },
        ],
      },
    });
    expect((await service.listAccounts(platformWorkspace)).accounts).toEqual([]);
  });

  it('creates Ethereum and Solana accounts and lists them', async () => {
    const created = await service.createAccounts(platformWorkspace, { accounts: [eth0, sol0] }, actor);
    expect(created).toEqual({
      accounts: [expect.objectContaining(eth0), expect.objectContaining(sol0)],
      message: 'Created 2 account(s) at PLATFORM',
    });
    expect(await service.listAccounts(platformWorkspace)).toEqual({ accounts: created.accounts, message: '2 account(s) at PLATFORM' });
  });

  it('answers 400 WALLET_PROVIDER_NOT_CONFIGURED for a workspace without a provider', async () => {
    for (const call of [
      service.listAccounts(bareWorkspace),
      service.getBalances(bareWorkspace),
      service.createAccounts(bareWorkspace, { accounts: [eth0] }, actor),
    ]) {
      expect((await appError(call)).toObject()).toMatchObject({ code: 'WALLET_PROVIDER_NOT_CONFIGURED', statusCode: 400 });
    }
  });
});

describe('wallet balances', () => {
  let evm: Address;
  let sol: string;
  const receiver = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as Address;

  beforeAll(async () => {
    const { accounts } = await service.listAccounts(platformWorkspace);
    evm = accounts[0]!.address as Address;
    sol = accounts[1]!.address;
    const chain = anvilClients(anvil.rpcUrl);
    await chain.fund(evm, '1');
    await chain.mintUsdc(usdc, evm, '250.000001');
    // The derived key itself moves 50 MockUSDC away: balances after a mint and a transfer.
    const platform = platformFor(platformWorkspace);
    const { walletId } = await platform.ensureWallet();
    const hash = await platform.sendTransaction({
      walletId,
      from: evm,
      network: 'base-sepolia',
      to: usdc,
      data: encodeFunctionData({ abi: mockUsdcAbi, functionName: 'transfer', args: [receiver, parseUnits('50', 6)] }),
    });
    await chain.mined(hash);
    solana.lamports.set(sol, 1_500_000_000n);
    solana.tokenAccounts.set(sol, [
      { mint: DEVNET_USDC, amount: '2000000', decimals: 6 },
      { mint: DEVNET_USDC, amount: '500001', decimals: 6 },
    ]);
  });

  it('reads real balances on the local chain and Solana, and turns every failing network into a warning', async () => {
    const { balances, warnings } = await service.getBalances(platformWorkspace);
    const gasLeft = await anvilClients(anvil.rpcUrl).publicClient.getBalance({ address: evm });
    expect(gasLeft).toBeLessThan(parseEther('1'));
    expect(balances).toEqual([
      {
        address: evm,
        network: 'base-sepolia',
        nativeBalance: formatEther(gasLeft),
        nativeSymbol: 'ETH',
        tokens: [{ symbol: 'MockUSDC', balance: '200.000001', contractAddress: usdc }],
      },
      {
        address: sol,
        network: 'solana-devnet',
        nativeBalance: '1.5',
        nativeSymbol: 'SOL',
        tokens: [{ symbol: 'USDC', balance: '2.500001', contractAddress: DEVNET_USDC }],
      },
    ]);
    expect(warnings).toEqual(
      expect.arrayContaining([
        {
          code: 'TOKEN_UNAVAILABLE',
          message: `GONE at ${noCodeToken} could not be read on base-sepolia`,
          network: 'base-sepolia',
          address: evm,
          token: 'GONE',
        },
        { code: 'RPC_UNAVAILABLE', message: 'the RPC could not be reached', network: 'ethereum-sepolia', address: evm },
        { code: 'RPC_TIMEOUT', message: 'the RPC did not answer within 500 ms', network: 'optimism-sepolia', address: evm },
        { code: 'MALFORMED_RESPONSE', message: expect.any(String), network: 'arbitrum-sepolia', address: evm },
      ]),
    );
    expect(warnings).toHaveLength(4);
    // No warning quotes an RPC URL (they often carry API keys).
    expect(JSON.stringify(warnings)).not.toContain('127.0.0.1');
    const receiverBalance = await anvilClients(anvil.rpcUrl).publicClient.readContract({
      address: usdc,
      abi: mockUsdcAbi,
      functionName: 'balanceOf',
      args: [receiver],
    });
    expect(receiverBalance).toBe(parseUnits('50', 6));
  });

  it.each([
    ['hang', 'RPC_TIMEOUT'],
    ['malformed', 'MALFORMED_RESPONSE'],
    ['rpc_error', 'RPC_UNAVAILABLE'],
    ['bad_shape', 'MALFORMED_RESPONSE'],
  ] as const)('keeps the EVM balances when the Solana RPC is %s', async (mode, code) => {
    solana.mode = mode;
    try {
      const { balances, warnings } = await healthyOnly.getBalances(platformWorkspace);
      expect(balances.map((b) => b.network)).toEqual(['base-sepolia']);
      expect(warnings).toEqual(expect.arrayContaining([expect.objectContaining({ code, network: 'solana-devnet', address: sol })]));
    } finally {
      solana.mode = 'ok';
    }
  });

  it('reads lamports above 2^53 exactly', async () => {
    solana.lamports.set(sol, 12_345_678_901_234_567_891n);
    try {
      const { balances } = await healthyOnly.getBalances(platformWorkspace);
      expect(balances.find((b) => b.network === 'solana-devnet')?.nativeBalance).toBe('12345678901.234567891');
    } finally {
      solana.lamports.set(sol, 1_500_000_000n);
    }
  });
});

describe('a custody workspace (CUSTODY_D)', () => {
  it('creates its wallet at the vendor on first use, records it on the config and lists through the vendor', async () => {
    expect(await service.listAccounts(custodyWorkspace)).toMatchObject({ accounts: [] });
    const created = await service.createAccounts(custodyWorkspace, { accounts: [eth0] }, actor);
    expect(created).toEqual({
      accounts: [{ address: expect.stringMatching(/^0x/), addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: null }],
      message: 'Created 1 account(s) at CUSTODY_D; CUSTODY_D chose the derivation',
    });
    const more = await service.createAccounts(custodyWorkspace, { accounts: [eth0] }, actor);
    expect((await service.listAccounts(custodyWorkspace)).accounts).toEqual([...created.accounts, ...more.accounts]);
    expect(new Set(vendorD.accounts.map((a) => a.name))).toEqual(new Set([`holdfast-workspace-${custodyWorkspace}`]));
  });

  it('reads its balances on chain, and degrades to a warning when the vendor fails', async () => {
    const ok = await healthyOnly.getBalances(custodyWorkspace);
    expect(ok.balances).toHaveLength(2);
    expect(ok.balances.every((b) => b.network === 'base-sepolia' && b.nativeBalance === '0')).toBe(true);
    vendorD.mode = 'unauthorized';
    try {
      expect(await service.getBalances(custodyWorkspace)).toEqual({
        balances: [],
        warnings: [
          { code: 'PROVIDER_ERROR', message: 'CUSTODY_D refused our credentials (HTTP 401): invalid API key', provider: 'CUSTODY_D' },
        ],
      });
      expect((await appError(service.listAccounts(custodyWorkspace))).toObject()).toMatchObject({
        code: 'WALLET_PROVIDER_ERROR',
        statusCode: 502,
        details: { provider: 'CUSTODY_D', reason: 'unauthorized', vendorStatus: 401 },
      });
    } finally {
      vendorD.mode = 'ok';
    }
  });
});
