import { type Anvil, initCodeReturning, startAnvil } from '@holdfast/test-fixtures';
import { createPublicClient, createWalletClient, getContractAddress, type Hex, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deployEscrow,
  ensureLocalContracts,
  escrowContractsEntry,
  escrowGenuineness,
  evmChain,
  holdfastEscrowDeployedBytecode,
  holdfastEscrowImmutableRanges,
  holdfastEscrowReleases,
  isCodeOf,
  type LocalContracts,
  localDeployerAccount,
  mockUsdcDeployedBytecode,
  mockUsdcImmutableRanges,
  tokenContractsEntry,
} from '../src/index.js';

let anvil: Anvil;
let clients: Parameters<typeof ensureLocalContracts>[0];
/** The contracts the first test deploys. */
let first: LocalContracts;

beforeAll(async () => {
  anvil = await startAnvil();
  const chain = evmChain({ id: anvil.chainId, name: 'anvil', rpcUrl: anvil.rpcUrl });
  const transport = http(anvil.rpcUrl);
  clients = {
    publicClient: createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 }),
    walletClient: createWalletClient({ account: localDeployerAccount(), chain, transport, pollingInterval: 50 }),
  };
});

afterAll(async () => {
  await anvil?.stop();
});

describe('ensureLocalContracts', () => {
  it('deploys MockUSDC then the escrow from anvil dev account #9, at the same addresses on every fresh chain', async () => {
    const deployer = localDeployerAccount().address;
    expect(deployer).toBe('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720');
    const result = await ensureLocalContracts(clients);
    expect(result.deployed).toBe(true);
    first = result.contracts;
    expect(first).toMatchObject({
      chainId: 84532,
      deployer,
      mockUsdc: { address: getContractAddress({ from: deployer, nonce: 0n }), blockNumber: '1' },
      escrow: { address: getContractAddress({ from: deployer, nonce: 1n }), blockNumber: '2' },
    });
    // Documented in docs/chain.md: the local addresses on every fresh anvil.
    expect([first.mockUsdc.address, first.escrow.address]).toEqual([
      '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35',
      '0xA15BB66138824a1c7167f5E85b957d04Dd34E468',
    ]);
    expect(
      isCodeOf(
        await clients.publicClient.getCode({ address: first.escrow.address }),
        holdfastEscrowDeployedBytecode,
        holdfastEscrowImmutableRanges,
      ),
    ).toBe(true);
  });

  it('reuses recorded contracts whose code the chain holds, without a transaction', async () => {
    const before = await clients.publicClient.getBlockNumber();
    const again = await ensureLocalContracts({ ...clients, recorded: first });
    expect(again).toEqual({ contracts: first, deployed: false });
    expect(await clients.publicClient.getBlockNumber()).toBe(before);
  });

  it('deploys anew when the record names another chain, an address without code, or other code', async () => {
    for (const recorded of [
      { ...first, chainId: 1 },
      { ...first, escrow: { ...first.escrow, address: '0x000000000000000000000000000000000000dEaD' as const } },
      { ...first, escrow: { ...first.escrow, address: first.mockUsdc.address } },
    ]) {
      const result = await ensureLocalContracts({ ...clients, recorded });
      expect(result.deployed).toBe(true);
      expect(result.contracts.escrow.address).not.toBe(first.escrow.address);
    }
  });

  it('formats the configuration entries', () => {
    expect(escrowContractsEntry('base-sepolia', first.escrow)).toBe(`base-sepolia=${first.escrow.address}@2`);
    expect(tokenContractsEntry('base-sepolia', 'MockUSDC', first.mockUsdc)).toBe(`base-sepolia:MockUSDC=${first.mockUsdc.address}`);
  });
});

describe('isCodeOf', () => {
  const ranges = holdfastEscrowImmutableRanges;
  /** The artifact with byte `offset` (of the runtime code) set to `value`. */
  const withByte = (code: Hex, offset: number, value: string): Hex =>
    `0x${code.slice(2, 2 + offset * 2)}${value}${code.slice(4 + offset * 2)}` as Hex;
  const insideImmutable = (offset: number) => ranges.some((r) => offset >= r.start && offset < r.start + r.length);

  it('accepts the runtime code with immutables filled in and refuses any other code', () => {
    expect(isCodeOf(mockUsdcDeployedBytecode, mockUsdcDeployedBytecode, mockUsdcImmutableRanges)).toBe(true);
    expect(isCodeOf(undefined, mockUsdcDeployedBytecode, mockUsdcImmutableRanges)).toBe(false);
    expect(isCodeOf('0x', mockUsdcDeployedBytecode, mockUsdcImmutableRanges)).toBe(false);
    expect(isCodeOf(mockUsdcDeployedBytecode, holdfastEscrowDeployedBytecode, ranges)).toBe(false);
    const changed: `0x${string}` = `0x${mockUsdcDeployedBytecode.slice(2, -2)}${mockUsdcDeployedBytecode.endsWith('33') ? '34' : '33'}`;
    expect(isCodeOf(changed, mockUsdcDeployedBytecode, mockUsdcImmutableRanges)).toBe(false);
  });

  it('lets only the compiler immutable ranges differ: a changed zero byte anywhere else is another contract', () => {
    expect(ranges.length).toBeGreaterThan(0);
    const code = holdfastEscrowDeployedBytecode;
    // Every byte of the immutables may hold anything (the constructor writes them).
    let filled: Hex = code;
    for (const r of ranges) for (let i = r.start; i < r.start + r.length; i++) filled = withByte(filled, i, 'ff');
    expect(isCodeOf(filled, code, ranges)).toBe(true);
    // A zero byte outside them (a jump target, a PUSH argument) is code: changing it makes another contract.
    const zeros: number[] = [];
    for (let i = 0; i < (code.length - 2) / 2; i++) if (code.slice(2 + i * 2, 4 + i * 2) === '00' && !insideImmutable(i)) zeros.push(i);
    expect(zeros.length).toBeGreaterThan(10);
    for (const offset of zeros) expect(isCodeOf(withByte(code, offset, '5b'), code, ranges)).toBe(false);
  });

  it('finds the deployed escrow genuine, its periods being immutables', async () => {
    const deployed = await clients.publicClient.getCode({ address: first.escrow.address });
    expect(deployed).not.toBe(holdfastEscrowDeployedBytecode);
    expect(isCodeOf(deployed, holdfastEscrowDeployedBytecode, ranges)).toBe(true);
  });
});

describe('escrowGenuineness', () => {
  it('finds a deployed HoldfastEscrow genuine, with its periods', async () => {
    const deployed = await deployEscrow({ ...clients, expiryPeriod: 86_400n, freezePeriod: 2n * 86_400n });
    expect(await escrowGenuineness(clients.publicClient, deployed.address)).toEqual({
      reason: null,
      expiryPeriod: 86_400n,
      freezePeriod: 172_800n,
    });
  });

  it("refuses HoldfastEscrow's runtime code deployed without its constructor: periods of 0 let anyone claim at once", async () => {
    // The attack: the same runtime code behind an init code that skips the constructor's checks.
    const hash = await clients.walletClient.sendTransaction({
      data: initCodeReturning(holdfastEscrowDeployedBytecode),
      account: localDeployerAccount(),
      chain: clients.walletClient.chain,
    });
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
    const lookAlike = receipt.contractAddress!;
    // Its code passes the byte comparison (the immutables are the only difference, and they are 0)...
    expect(
      isCodeOf(await clients.publicClient.getCode({ address: lookAlike }), holdfastEscrowDeployedBytecode, holdfastEscrowImmutableRanges),
    ).toBe(true);
    // ...but not the periods.
    expect(await escrowGenuineness(clients.publicClient, lookAlike)).toEqual({ reason: 'periods', expiryPeriod: 0n, freezePeriod: 0n });
  });

  it('finds an escrow of an earlier release genuine (a dedicated escrow deployed before the contract changed)', async () => {
    const [release] = holdfastEscrowReleases;
    // Release 1's runtime code with every immutable set to one day, as its constructor would have.
    const day = (86_400).toString(16).padStart(64, '0');
    let code: string = release.deployedBytecode;
    for (const r of release.immutableRanges) code = `${code.slice(0, 2 + r.start * 2)}${day}${code.slice(2 + (r.start + r.length) * 2)}`;
    const hash = await clients.walletClient.sendTransaction({
      data: initCodeReturning(code as Hex),
      account: localDeployerAccount(),
      chain: clients.walletClient.chain,
    });
    const earlier = (await clients.publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    expect(await escrowGenuineness(clients.publicClient, earlier)).toEqual({ reason: null, expiryPeriod: 86_400n, freezePeriod: 86_400n });
  });

  it('refuses other code', async () => {
    expect((await escrowGenuineness(clients.publicClient, first.mockUsdc.address)).reason).toBe('code');
  });
});
