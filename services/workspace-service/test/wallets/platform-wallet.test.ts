import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '@holdfast/contracts';
import { createSecretBox } from '@holdfast/secrets';
import { ANVIL_ACCOUNTS, type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { eq } from 'drizzle-orm';
import { bytesToHex, createPublicClient, createWalletClient, hexToBytes, http, parseEther, verifyMessage } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformWalletAccounts, platformWallets } from '../../src/db/schema.js';
import { evmChain } from '../../src/modules/wallets/common/chains.js';
import { ANVIL_MNEMONIC } from '../../src/modules/wallets/common/settings.js';
import { derive, isMnemonic, seedOf, slip10Ed25519, specProblems } from '../../src/modules/wallets/providers/hd.js';
import { createPlatformAdapter, type PlatformAdapter, seedContext } from '../../src/modules/wallets/providers/platform.js';
import { createPlatformWalletRepository } from '../../src/modules/wallets/providers/repository.js';
import { openTestDatabase, type TestDb } from '../support/db.js';
import { insertWorkspace } from '../support/tenants.js';

const eth0 = { addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" } as const;
const sol0 = { addressFormat: 'ADDRESS_FORMAT_SOLANA', curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" } as const;

describe('HD derivation', () => {
  it('derives BIP-44 Ethereum accounts as every wallet does (anvil development mnemonic)', () => {
    const seed = seedOf(ANVIL_MNEMONIC);
    expect(derive(seed, 'ADDRESS_FORMAT_ETHEREUM', "m/44'/60'/0'/0/0").address).toBe(ANVIL_ACCOUNTS[0].address);
    expect(derive(seed, 'ADDRESS_FORMAT_ETHEREUM', "m/44'/60'/0'/0/3").address).toBe(ANVIL_ACCOUNTS[3].address);
  });

  it('follows the SLIP-0010 ed25519 test vector 1', () => {
    const seed = hexToBytes('0x000102030405060708090a0b0c0d0e0f');
    const vector: [string, string][] = [
      ["m/0'", '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3'],
      ["m/0'/1'", 'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2'],
      ["m/0'/1'/2'", '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9'],
      ["m/0'/1'/2'/2'", '30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662'],
    ];
    for (const [path, privateKey] of vector) expect(bytesToHex(slip10Ed25519(seed, path)).slice(2), path).toBe(privateKey);
  });

  it('derives a Solana address as the base58 ed25519 public key and signs with it', () => {
    const key = derive(seedOf(ANVIL_MNEMONIC), 'ADDRESS_FORMAT_SOLANA', sol0.path);
    expect(key.curve).toBe('CURVE_ED25519');
    if (key.curve !== 'CURVE_ED25519') return;
    expect(base58.decode(key.address)).toHaveLength(32);
    const message = new TextEncoder().encode('holdfast');
    expect(ed25519.verify(hexToBytes(key.sign(message)), message, base58.decode(key.address))).toBe(true);
  });

  it('refuses combinations and paths it cannot derive, with a reason per field', () => {
    expect(specProblems(eth0, 'accounts.0')).toEqual([]);
    expect(specProblems(sol0, 'accounts.0')).toEqual([]);
    expect(specProblems({ ...eth0, curve: 'CURVE_ED25519' }, 'accounts.0')).toEqual([
      { field: 'accounts.0.curve', reason: 'ADDRESS_FORMAT_ETHEREUM is derived on CURVE_SECP256K1, not CURVE_ED25519' },
    ]);
    expect(specProblems({ ...sol0, curve: 'CURVE_SECP256K1' }, 'accounts.1')).toEqual([
      { field: 'accounts.1.curve', reason: 'ADDRESS_FORMAT_SOLANA is derived on CURVE_ED25519, not CURVE_SECP256K1' },
    ]);
    expect(specProblems({ ...sol0, path: "m/44'/501'/0'/0" }, 'accounts.0')[0]?.reason).toContain('hardened at every level');
    expect(specProblems({ ...eth0, path: 'm/2147483648' }, 'accounts.0')[0]?.field).toBe('accounts.0.path');
    expect(specProblems({ ...eth0, addressFormat: 'ADDRESS_FORMAT_BITCOIN' as never }, 'accounts.0')[0]?.field).toBe(
      'accounts.0.addressFormat',
    );
  });
});

describe('PLATFORM adapter', () => {
  let db: TestDb;
  let anvil: Anvil;
  const secrets = createSecretBox(randomBytes(32));
  const workspaceId = randomUUID();
  let adapter: PlatformAdapter;
  const adapterFor = (workspace: string) =>
    createPlatformAdapter({
      workspaceId: workspace,
      repository: createPlatformWalletRepository(db.db),
      secrets,
      chainRpcUrls: { 'base-sepolia': anvil.rpcUrl },
      rpcTimeoutMs: 5000,
    });

  beforeAll(async () => {
    [db, anvil] = await Promise.all([openTestDatabase(), startAnvil()]);
    await insertWorkspace(db.db, { id: workspaceId });
    adapter = adapterFor(workspaceId);
  });
  afterAll(async () => {
    await Promise.all([db?.drop(), anvil?.stop()]);
  });

  it('creates one wallet per workspace, its 24-word seed sealed at rest and bound to the row', async () => {
    const [first, second] = await Promise.all([adapter.ensureWallet(), adapter.ensureWallet()]);
    expect(first.walletId).toBe(second.walletId);
    const rows = await db.db.select().from(platformWallets).where(eq(platformWallets.workspaceId, workspaceId));
    expect(rows).toHaveLength(1);
    const sealed = rows[0]!.seedSealed;
    expect(sealed).toMatch(/^v1\./);
    const mnemonic = secrets.open(sealed, seedContext(first.walletId));
    expect(isMnemonic(mnemonic)).toBe(true);
    expect(mnemonic.split(' ')).toHaveLength(24);
    expect(sealed).not.toContain(mnemonic.split(' ')[0]);
    expect(() => secrets.open(sealed, seedContext(randomUUID()))).toThrow();
  });

  it('derives the requested accounts, the same ones again for the same paths, and lists them', async () => {
    const { walletId } = await adapter.ensureWallet();
    const created = await adapter.createAccounts({ walletId, accounts: [eth0, sol0] });
    expect(created).toEqual([
      { address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), ...eth0 },
      { address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/), ...sol0 },
    ]);
    const again = await adapter.createAccounts({ walletId, accounts: [eth0] });
    expect(again).toEqual([created[0]]);
    expect(await adapter.listAccounts({ walletId })).toEqual(created);
    expect(await db.db.select().from(platformWalletAccounts).where(eq(platformWalletAccounts.walletId, walletId))).toHaveLength(2);

    const other = adapterFor(await insertWorkspace(db.db));
    const otherWallet = await other.createWallet({ name: 'x', accounts: [eth0] });
    expect(otherWallet.accounts[0]?.address).not.toBe(created[0]?.address);
  });

  it('refuses an unsupported combination with 400 and stores nothing', async () => {
    const { walletId } = await adapter.ensureWallet();
    const before = await adapter.listAccounts({ walletId });
    const error = await adapter
      .createAccounts({
        walletId,
        accounts: [
          { ...eth0, path: "m/44'/60'/0'/0/9" },
          { ...sol0, curve: 'CURVE_SECP256K1' },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).toObject()).toMatchObject({
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: {
        errors: [{ field: 'accounts.1.curve', reason: 'ADDRESS_FORMAT_SOLANA is derived on CURVE_ED25519, not CURVE_SECP256K1' }],
      },
    });
    expect(await adapter.listAccounts({ walletId })).toEqual(before);
  });

  it('does not serve another workspace wallet', async () => {
    const { walletId } = await adapter.ensureWallet();
    const error = await adapterFor(await insertWorkspace(db.db))
      .listAccounts({ walletId })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('signs a message that verifies against the derived address', async () => {
    const { walletId } = await adapter.ensureWallet();
    const [account] = await adapter.listAccounts({ walletId });
    const signature = await adapter.signMessage({ walletId, address: account!.address, message: 'prove it' });
    expect(await verifyMessage({ address: account!.address as `0x${string}`, message: 'prove it', signature })).toBe(true);
  });

  it('signs and sends a transfer on the local chain from a derived address', async () => {
    const { walletId } = await adapter.ensureWallet();
    const [account] = await adapter.listAccounts({ walletId });
    const from = account!.address as `0x${string}`;
    const chain = evmChain('base-sepolia', anvil.rpcUrl);
    const publicClient = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    const funder = createWalletClient({ account: privateKeyToAccount(ANVIL_ACCOUNTS[0].privateKey), chain, transport: http(anvil.rpcUrl) });
    await publicClient.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: from, value: parseEther('2') }) });
    expect(await publicClient.getBalance({ address: from })).toBe(parseEther('2'));

    const recipient = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address;
    const hash = await adapter.sendTransaction({ walletId, from, network: 'base-sepolia', to: recipient, value: parseEther('0.75') });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(from.toLowerCase());
    expect(await publicClient.getBalance({ address: recipient })).toBe(parseEther('0.75'));
    expect(await publicClient.getBalance({ address: from })).toBe(parseEther('1.25') - receipt.gasUsed * receipt.effectiveGasPrice);
  });

  it('refuses to send on a network without an RPC', async () => {
    const { walletId } = await adapter.ensureWallet();
    const [account] = await adapter.listAccounts({ walletId });
    const error = await adapter
      .sendTransaction({ walletId, from: account!.address, network: 'ethereum', to: ANVIL_ACCOUNTS[1].address, value: 1n })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'network', reason: expect.stringContaining('ethereum') }] },
    });
  });
});
