import { randomUUID } from 'node:crypto';
import { ConfigError } from '@holdfast/config';
import { deployEscrow } from '@holdfast/escrow';
import { ANVIL_ACCOUNTS, type Anvil, startAnvil, testLogger } from '@holdfast/test-fixtures';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceConfigFrom } from '../../src/config.js';
import { anvilDevKey, DOCUMENTED_USDC } from '../../src/modules/wallets/common/settings.js';
import { createWalletFeatures, type WalletFeatures } from '../../src/modules/wallets/features.js';
import { anvilClients } from '../support/chain.js';
import { auditRecorder, openTestDatabase, type TestDb } from '../support/db.js';
import { insertCustomer, insertWorkspace } from '../support/tenants.js';

function configError(env: Record<string, string>): string[] {
  try {
    workspaceConfigFrom(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const staging = {
  APP_ENV: 'staging',
  INTERNAL_API_KEY: 'internal-key-0123456789',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  JWT_SECRET: 'x'.repeat(40),
  SIWE_DOMAIN: 'pay.example.com',
  MAILER_TRANSPORT: 'http',
  MAILER_HTTP_URL: 'https://mail.example.com/send',
  MAILER_API_KEY: 'mail-key-0123456789',
  REDIS_URL: 'redis://redis.example.com:6379',
};

describe('wallet configuration', () => {
  it('has local defaults: anvil dev account 8 deploys, the SIWE domain is the local API, no token defaults', () => {
    const { wallets } = workspaceConfigFrom({});
    expect(privateKeyToAccount(wallets.deployerPrivateKey!).address).toBe('0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f');
    expect(wallets).toMatchObject({
      appEnv: 'local',
      chainRpcUrls: { 'base-sepolia': 'http://127.0.0.1:8545' },
      solanaRpcUrls: {},
      tokenContracts: [],
      sharedEscrows: {},
      siwe: { domain: 'localhost:3002', uri: 'http://localhost:3002', nonceTtlMs: 600_000 },
      providerTimeoutMs: 10_000,
      chainRpcTimeoutMs: 5_000,
    });
  });

  it('reads every variable', () => {
    const { wallets } = workspaceConfigFrom({
      CHAIN_RPC_URLS: 'base-sepolia=http://127.0.0.1:9545',
      SOLANA_RPC_URLS: 'solana-devnet=https://api.devnet.solana.com',
      TOKEN_CONTRACTS:
        'base-sepolia:MockUSDC=0x5FbDB2315678afecb367f032d93F642f64180aa3,solana-devnet:USDC=4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      ESCROW_CONTRACTS: 'base-sepolia=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512@2',
      CONTRACT_DEPLOYER_PRIVATE_KEY: ANVIL_ACCOUNTS[2].privateKey,
      SIWE_DOMAIN: 'shop.test:8443',
      SIWE_URI: 'https://shop.test:8443/wallet',
      SIWE_NONCE_TTL: '2m',
      WALLET_PROVIDER_TIMEOUT: '3s',
      CHAIN_RPC_TIMEOUT: '1500ms',
    });
    expect(wallets).toMatchObject({
      solanaRpcUrls: { 'solana-devnet': 'https://api.devnet.solana.com' },
      tokenContracts: [
        { network: 'base-sepolia', symbol: 'MockUSDC', address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
        { network: 'solana-devnet', symbol: 'USDC', address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' },
      ],
      sharedEscrows: { 'base-sepolia': '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' },
      deployerPrivateKey: ANVIL_ACCOUNTS[2].privateKey,
      siwe: { domain: 'shop.test:8443', uri: 'https://shop.test:8443/wallet', nonceTtlMs: 120_000 },
      providerTimeoutMs: 3000,
      chainRpcTimeoutMs: 1500,
    });
  });

  it('uses the documented USDC outside local (no testnets in production), overridable', () => {
    const { wallets } = workspaceConfigFrom({ ...staging, TOKEN_CONTRACTS: 'base:USDC=0x0000000000000000000000000000000000000001' });
    expect(wallets.tokenContracts).toContainEqual({ network: 'base-sepolia', symbol: 'USDC', address: DOCUMENTED_USDC['base-sepolia'] });
    expect(wallets.tokenContracts).toContainEqual({
      network: 'base',
      symbol: 'USDC',
      address: '0x0000000000000000000000000000000000000001',
    });
    expect(wallets.siwe.uri).toBe('https://pay.example.com');
    expect(wallets.deployerPrivateKey).toBeUndefined();
    const production = workspaceConfigFrom({
      ...staging,
      APP_ENV: 'production',
      NATS_USER: 'workspace-service',
      NATS_PASSWORD: 'pw',
    }).wallets.tokenContracts.map((t) => t.network);
    expect(production).toContain('ethereum');
    expect(production).not.toContain('base-sepolia');
  });

  it('refuses bad values with one line each, never echoing a key', () => {
    const { SIWE_DOMAIN: _domain, ...withoutDomain } = staging;
    expect(configError(withoutDomain)).toEqual(['SIWE_DOMAIN: is required when APP_ENV is staging (missing)']);
    expect(
      configError({
        SOLANA_RPC_URLS: 'base=http://x',
        CONTRACT_DEPLOYER_PRIVATE_KEY: '0xnot-a-key',
        SIWE_DOMAIN: 'https://pay.example.com',
        SIWE_NONCE_TTL: 'ten minutes',
      }),
    ).toEqual([
      'SOLANA_RPC_URLS: must be network=url pairs for solana, solana-devnet or solana-testnet, comma-separated (got "base=http://x")',
      'CONTRACT_DEPLOYER_PRIVATE_KEY: must be a private key: 0x and 64 hex digits (got a value (hidden))',
      'SIWE_DOMAIN: must be the host (and port) customers sign in on, e.g. pay.example.com (got "https://pay.example.com")',
      'SIWE_NONCE_TTL: must be a duration such as 10m (got "ten minutes")',
    ]);
    // The contract lists are read entry by entry once the rest is valid, one line per bad entry.
    expect(
      configError({
        TOKEN_CONTRACTS: 'base-sepolia=0x1,base-sepolia:ETH=0x5FbDB2315678afecb367f032d93F642f64180aa3',
        ESCROW_CONTRACTS: 'optimism=0x5FbDB2315678afecb367f032d93F642f64180aa3',
      }),
    ).toEqual([
      'TOKEN_CONTRACTS: "base-sepolia=0x1": must be network:SYMBOL=address, e.g. base-sepolia:MockUSDC=0x5FbDB2315678afecb367f032d93F642f64180aa3',
      'TOKEN_CONTRACTS: "base-sepolia:ETH=0x5FbDB2315678afecb367f032d93F642f64180aa3": "ETH" is not a token currency (one of USDC, USDT, MockUSDC, USDG)',
      'ESCROW_CONTRACTS: "optimism=0x5FbDB2315678afecb367f032d93F642f64180aa3": must be network=address@deploymentBlock, e.g. base-sepolia=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512@2',
    ]);
  });
});

describe('the wallet features assembled from configuration', () => {
  let db: TestDb;
  let anvil: Anvil;
  let features: WalletFeatures;
  let sharedEscrow: string;
  const audit = auditRecorder();
  const workspaceId = randomUUID();
  const customerId = randomUUID();

  beforeAll(async () => {
    [db, anvil] = await Promise.all([openTestDatabase(), startAnvil()]);
    await insertWorkspace(db.db, { id: workspaceId, walletProvider: 'PLATFORM' });
    await insertCustomer(db.db, workspaceId, customerId);
    const chain = anvilClients(anvil.rpcUrl);
    sharedEscrow = (await deployEscrow({ walletClient: chain.walletClient, publicClient: chain.publicClient })).address;
    const config = workspaceConfigFrom({
      CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}`,
      ESCROW_CONTRACTS: `base-sepolia=${sharedEscrow}@1`,
    });
    features = createWalletFeatures({
      db: db.db,
      settings: config.wallets,
      logger: testLogger('wallet-features'),
      audit: audit.sink,
      workspaceWalletProvider: async (id) => (id === workspaceId ? 'PLATFORM' : null),
      findCustomer: async (c) => (c === customerId ? { workspaceId } : null),
    });
  });
  afterAll(async () => {
    await Promise.all([db?.drop(), anvil?.stop()]);
  });

  it('lets a customer link a wallet and see its balance on the local chain', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const issued = await features.customerWallets.issueNonce(workspaceId, customerId, { walletAddress: wallet.address });
    expect(issued).toMatchObject({ domain: 'localhost:3002', uri: 'http://localhost:3002', chainId: 84532 });
    const signature = await wallet.signMessage({ message: issued.message! });
    await features.customerWallets.linkWallet(
      workspaceId,
      customerId,
      { walletAddress: wallet.address, message: issued.message!, signature },
      {},
    );
    await anvilClients(anvil.rpcUrl).fund(wallet.address, '3');
    expect((await features.customerWallets.getWalletBalances(workspaceId, customerId)).balances).toEqual([
      { address: wallet.address, network: 'base-sepolia', nativeBalance: '3', nativeSymbol: 'ETH', tokens: [] },
    ]);
  });

  it('gives the workspace PLATFORM accounts and a dedicated escrow paid by the local deployer', async () => {
    const created = await features.walletAccounts.createAccounts(
      workspaceId,
      { accounts: [{ addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" }] },
      {},
    );
    expect(created.accounts).toHaveLength(1);
    expect(await features.contracts.getForNetwork(workspaceId, 'base-sepolia')).toMatchObject({ address: sharedEscrow, isShared: true });
    const deployed = await features.contracts.deploy(workspaceId, 'base-sepolia', { actorId: randomUUID() });
    const receipt = await anvilClients(anvil.rpcUrl).publicClient.getTransactionReceipt({
      hash: deployed.transactionHash as `0x${string}`,
    });
    expect(receipt.from).toBe(privateKeyToAccount(anvilDevKey(8)).address.toLowerCase());
    expect(await features.contracts.getForNetwork(workspaceId, 'base-sepolia')).toMatchObject({
      address: deployed.contractAddress,
      isShared: false,
    });
  });
});
