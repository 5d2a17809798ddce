import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { type Address, getAddress, getContract, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_EXPIRY_PERIOD,
  DEFAULT_FREEZE_PERIOD,
  DeploymentError,
  deployEscrow,
  deployMockUsdc,
  holdfastEscrowAbi,
  MAX_PERIOD,
  MIN_PERIOD,
  mockUsdcAbi,
  mockUsdcDeployedBytecode,
} from '../src/index.js';
import { type Connection, connect } from './support/chain.js';

let anvil: Anvil;
let c: Connection;
let deployer: Address;
let holder: Address;
const clients = () => ({ walletClient: c.wallet(deployer), publicClient: c.publicClient });

beforeAll(async () => {
  anvil = await startAnvil();
  c = await connect(anvil);
  [deployer, holder] = c.accounts as [Address, Address];
});

afterAll(async () => {
  await anvil?.stop();
});

describe('deployMockUsdc', () => {
  it('deploys a 6-decimal token anyone may mint, and reports the deployment as mined', async () => {
    const deployment = await deployMockUsdc(clients());
    const receipt = await c.publicClient.getTransactionReceipt({ hash: deployment.transactionHash });
    expect(deployment).toEqual({
      address: getAddress(receipt.contractAddress!),
      transactionHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
    });
    // MockUSDC has no immutables, so its runtime code is exactly the generated constant.
    expect(await c.publicClient.getCode({ address: deployment.address })).toBe(mockUsdcDeployedBytecode);

    const usdc = getContract({
      address: deployment.address,
      abi: mockUsdcAbi,
      client: { public: c.publicClient, wallet: c.wallet(holder) },
    });
    expect(await usdc.read.decimals()).toBe(6);
    expect(await usdc.read.symbol()).toBe('MockUSDC');
    await c.mined(usdc.write.mint([holder, parseUnits('42.5', 6)]));
    expect(await usdc.read.balanceOf([holder])).toBe(42_500_000n);
  });
});

describe('deployEscrow', () => {
  it('deploys with the default periods', async () => {
    const deployment = await deployEscrow(clients());
    expect(deployment.gasUsed).toBeGreaterThan(0n);
    const escrow = getContract({ address: deployment.address, abi: holdfastEscrowAbi, client: c.publicClient });
    expect(await escrow.read.expiryPeriod()).toBe(DEFAULT_EXPIRY_PERIOD);
    expect(await escrow.read.freezePeriod()).toBe(DEFAULT_FREEZE_PERIOD);
  });

  it('deploys with chosen periods at the bounds', async () => {
    const deployment = await deployEscrow({ ...clients(), expiryPeriod: MIN_PERIOD, freezePeriod: MAX_PERIOD });
    const escrow = getContract({ address: deployment.address, abi: holdfastEscrowAbi, client: c.publicClient });
    expect(await escrow.read.expiryPeriod()).toBe(MIN_PERIOD);
    expect(await escrow.read.freezePeriod()).toBe(MAX_PERIOD);
    expect(await escrow.read.MIN_PERIOD()).toBe(MIN_PERIOD);
    expect(await escrow.read.MAX_PERIOD()).toBe(MAX_PERIOD);
  });

  it('refuses periods out of bounds with the decoded InvalidPeriod error', async () => {
    for (const [args, bad] of [
      [{ expiryPeriod: MIN_PERIOD - 1n }, MIN_PERIOD - 1n],
      [{ freezePeriod: MAX_PERIOD + 1n }, MAX_PERIOD + 1n],
    ] as const) {
      const failure = await deployEscrow({ ...clients(), ...args }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DeploymentError);
      expect(failure).toMatchObject({ errorName: 'InvalidPeriod', errorArgs: [bad] });
    }
  });
});
