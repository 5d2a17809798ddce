import { randomUUID } from 'node:crypto';
import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { type Abi, type Address, encodeFunctionData, getContract, type Hex, maxUint256, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledContract } from '../scripts/compile.js';
import { DEFAULT_EXPIRY_PERIOD, deployEscrow, EscrowStatus, holdfastEscrowAbi, uuidToOnchainId } from '../src/index.js';
import { type Connection, connect, expectRevert } from './support/chain.js';
import { compileFixtures, deployFixture } from './support/fixtures.js';

const HOUR = 3_600n;
const newId = () => uuidToOnchainId(randomUUID());

let anvil: Anvil;
let c: Connection;
let deployer: Address;
let attester: Address;
let sender: Address;
let receiver: Address;
let stranger: Address;
let escrow: Address;
let fixtures: Map<string, CompiledContract>;

const escrowAs = (account: Address) =>
  getContract({ address: escrow, abi: holdfastEscrowAbi, client: { public: c.publicClient, wallet: c.wallet(account) } }).write;
const escrowOf = (id: Hex) =>
  c.publicClient.readContract({ address: escrow, abi: holdfastEscrowAbi, functionName: 'getEscrow', args: [id] });

/** Deploys fixture token `name`, mints `amount` to the sender and approves the escrow. */
async function hostileToken(name: string, amount = 1_000_000n) {
  const fixture = fixtures.get(name)!;
  const address = await deployFixture(c, deployer, fixture);
  const abi = fixture.abi as Abi;
  // The fixture ABIs are not `as const`, so calls go through the untyped write/read actions.
  const write = (account: Address, functionName: string, args: readonly unknown[]) =>
    c.mined(c.wallet(account).writeContract({ address, abi, functionName, args }));
  await write(sender, 'mint', [sender, amount]);
  await write(sender, 'approve', [escrow, maxUint256]);
  const read = (functionName: string, args: readonly unknown[] = []) => c.publicClient.readContract({ address, abi, functionName, args });
  return { address, write, read, balanceOf: async (account: Address) => (await read('balanceOf', [account])) as bigint };
}

beforeAll(async () => {
  fixtures = compileFixtures();
  anvil = await startAnvil();
  c = await connect(anvil);
  [deployer, attester, sender, receiver, stranger] = c.accounts as [Address, Address, Address, Address, Address];
  escrow = (await deployEscrow({ walletClient: c.wallet(deployer), publicClient: c.publicClient })).address;
});

afterAll(async () => {
  await anvil?.stop();
});

describe('fee-on-transfer tokens', () => {
  it('are refused: the escrow must hold exactly the recorded amount', async () => {
    const token = await hostileToken('FeeOnTransferToken');
    const deadline = (await c.now()) + HOUR;
    await expectRevert(
      () => escrowAs(sender).createEscrow([newId(), receiver, token.address, 1_000n, attester, deadline]),
      'TransferAmountMismatch',
      [1_000n, 990n],
    );
    await expectRevert(
      () => escrowAs(sender).createBatch([[newId(), newId()], [receiver, receiver], [1_000n, 2_000n], token.address, attester, deadline]),
      'TransferAmountMismatch',
      [3_000n, 2_970n],
    );
    expect(await token.balanceOf(escrow)).toBe(0n);
  });

  it('are refused by pay: its log must say what the receiver got', async () => {
    const token = await hostileToken('FeeOnTransferToken');
    const id = newId();
    await expectRevert(() => escrowAs(sender).pay([id, receiver, token.address, 1_000n]), 'TransferAmountMismatch', [1_000n, 990n]);
    expect(await token.balanceOf(receiver)).toBe(0n);
    expect(await c.publicClient.readContract({ address: escrow, abi: holdfastEscrowAbi, functionName: 'paymentIdUsed', args: [id] })).toBe(
      false,
    );
  });
});

describe('tokens that return false', () => {
  it('fail the call with SafeERC20FailedOperation and leave the escrow held until the token works again', async () => {
    const token = await hostileToken('FalseReturningToken');
    const id = newId();
    const deadline = (await c.now()) + HOUR;
    await c.mined(escrowAs(sender).createEscrow([id, receiver, token.address, 500n, attester, deadline]));

    await token.write(deployer, 'setFailing', [true]);
    await expectRevert(() => escrowAs(sender).release([id]), 'SafeERC20FailedOperation', [token.address]);
    await expectRevert(
      () => escrowAs(sender).createEscrow([newId(), receiver, token.address, 500n, attester, deadline]),
      'SafeERC20FailedOperation',
      [token.address],
    );
    expect((await escrowOf(id)).status).toBe(EscrowStatus.Held);

    await token.write(deployer, 'setFailing', [false]);
    await c.mined(escrowAs(sender).release([id]));
    expect(await token.balanceOf(receiver)).toBe(500n);
  });
});

describe('re-entrancy through a malicious token', () => {
  const reentrantCall = toFunctionSelector('ReentrancyGuardReentrantCall()');

  /** Escrow `paying` (to be paid out by the test) and `claimable` (already expired: anyone may claim it). */
  async function setUp() {
    const token = await hostileToken('ReentrantToken');
    const claimable = newId();
    await c.mined(escrowAs(sender).createEscrow([claimable, receiver, token.address, 700n, attester, 0n]));
    await c.travel(DEFAULT_EXPIRY_PERIOD + 1n);
    const paying = newId();
    await c.mined(escrowAs(sender).createEscrow([paying, receiver, token.address, 300n, attester, (await c.now()) + HOUR]));
    const claimData = encodeFunctionData({ abi: holdfastEscrowAbi, functionName: 'claimExpired', args: [claimable] });
    return { token, claimable, paying, claimData };
  }

  it('refuses a call back into the escrow during a payout, reverting the whole payout', async () => {
    const { token, claimable, paying, claimData } = await setUp();
    await token.write(deployer, 'arm', [escrow, claimData, true]);
    await expectRevert(() => escrowAs(sender).release([paying]), 'ReentrancyGuardReentrantCall', []);
    expect((await escrowOf(paying)).status).toBe(EscrowStatus.Held);
    expect((await escrowOf(claimable)).status).toBe(EscrowStatus.Held);
    expect(await token.balanceOf(escrow)).toBe(1_000n);
  });

  it('refuses it even when the token swallows the failure, and pays out exactly once', async () => {
    const { token, claimable, paying, claimData } = await setUp();
    await token.write(deployer, 'arm', [escrow, claimData, false]);
    await c.mined(escrowAs(sender).release([paying]));

    expect(await token.read('attempted')).toBe(true);
    expect(await token.read('callSucceeded')).toBe(false);
    expect(await token.read('callResult')).toBe(reentrantCall);
    expect((await escrowOf(paying)).status).toBe(EscrowStatus.Released);
    expect((await escrowOf(claimable)).status).toBe(EscrowStatus.Held);
    expect(await token.balanceOf(receiver)).toBe(300n);
    expect(await token.balanceOf(escrow)).toBe(700n);

    // The guard was the only obstacle: outside the payout the same call goes through.
    await c.mined(escrowAs(stranger).claimExpired([claimable]));
    expect(await token.balanceOf(receiver)).toBe(1_000n);
    expect(await token.balanceOf(escrow)).toBe(0n);
  });

  it('refuses a call back into the escrow during the deposit', async () => {
    const token = await hostileToken('ReentrantToken');
    const nested = newId();
    const deadline = (await c.now()) + HOUR;
    const createData = encodeFunctionData({
      abi: holdfastEscrowAbi,
      functionName: 'createEscrow',
      args: [nested, receiver, token.address, 1n, attester, deadline],
    });
    await token.write(deployer, 'arm', [escrow, createData, true]);
    const outer = newId();
    await expectRevert(
      () => escrowAs(sender).createEscrow([outer, receiver, token.address, 100n, attester, deadline]),
      'ReentrancyGuardReentrantCall',
      [],
    );
    expect((await escrowOf(outer)).status).toBe(EscrowStatus.None);
    expect((await escrowOf(nested)).status).toBe(EscrowStatus.None);
  });

  it('refuses a call back into the escrow during pay', async () => {
    const token = await hostileToken('ReentrantToken');
    const nested = newId();
    const payData = encodeFunctionData({ abi: holdfastEscrowAbi, functionName: 'pay', args: [nested, receiver, token.address, 1n] });
    await token.write(deployer, 'arm', [escrow, payData, true]);
    const outer = newId();
    await expectRevert(() => escrowAs(sender).pay([outer, receiver, token.address, 100n]), 'ReentrancyGuardReentrantCall', []);
    expect(await token.balanceOf(receiver)).toBe(0n);
  });
});
