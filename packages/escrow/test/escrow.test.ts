import { randomUUID } from 'node:crypto';
import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import {
  type Address,
  getContract,
  type Hex,
  maxUint256,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
  zeroAddress,
  zeroHash,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_EXPIRY_PERIOD,
  DEFAULT_FREEZE_PERIOD,
  deployEscrow,
  deployMockUsdc,
  EscrowStatus,
  holdfastEscrowAbi,
  MAX_BPS,
  mockUsdcAbi,
  ReleaseReason,
  uuidToOnchainId,
} from '../src/index.js';
import { type Connection, connect, expectRevert, revertEachTest, revertsSeen } from './support/chain.js';

const HOUR = 3_600n;
const DAY = 86_400n;
const usdc = (amount: string) => parseUnits(amount, 6);
const newId = () => uuidToOnchainId(randomUUID());
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

let anvil: Anvil;
let c: Connection;
let attester: Address;
let sender: Address;
let receiver: Address;
let stranger: Address;
let token: Address;
let escrow: Address;
const gas: Record<string, bigint> = {};

const escrowAs = (account: Address) =>
  getContract({ address: escrow, abi: holdfastEscrowAbi, client: { public: c.publicClient, wallet: c.wallet(account) } }).write;
const balanceOf = (account: Address) =>
  c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'balanceOf', args: [account] });
const balances = (...accounts: Address[]) => Promise.all(accounts.map(balanceOf));
/** Runs `move` and checks that it paid `amount` out of the escrow to `to`; its receipt. */
const paidOut = async (to: Address, amount: bigint, move: () => Promise<TransactionReceipt>) => {
  const [toBefore, escrowBefore] = await balances(to, escrow);
  const receipt = await move();
  expect(await balances(to, escrow)).toEqual([toBefore! + amount, escrowBefore! - amount]);
  return receipt;
};
const escrowOf = (id: Hex) =>
  c.publicClient.readContract({ address: escrow, abi: holdfastEscrowAbi, functionName: 'getEscrow', args: [id] });
const escrowEvents = <
  N extends
    | 'EscrowCreated'
    | 'BatchCreated'
    | 'EscrowReleased'
    | 'EscrowRescinded'
    | 'EscrowRefunded'
    | 'EscrowFrozen'
    | 'EarlyReleaseAttested'
    | 'TransferForwarded',
>(
  receipt: TransactionReceipt,
  eventName: N,
) => parseEventLogs({ abi: holdfastEscrowAbi, logs: receipt.logs, eventName });
const transfers = (receipt: TransactionReceipt) =>
  parseEventLogs({ abi: mockUsdcAbi, logs: receipt.logs, eventName: 'Transfer' }).filter(
    (l) => l.address.toLowerCase() === token.toLowerCase(),
  );

interface Created {
  id: Hex;
  amount: bigint;
  holdDeadline: bigint;
  expiresAt: bigint;
  receipt: TransactionReceipt;
}

/** Creates one escrow from `sender` to `receiver` held for `hold` seconds from now. */
async function createEscrow({ amount = usdc('100'), hold = HOUR }: { amount?: bigint; hold?: bigint } = {}): Promise<Created> {
  const id = newId();
  const holdDeadline = (await c.now()) + hold;
  const receipt = await c.mined(escrowAs(sender).createEscrow([id, receiver, token, amount, attester, holdDeadline]));
  const [created] = escrowEvents(receipt, 'EscrowCreated');
  return { id, amount, holdDeadline, expiresAt: created!.args.expiresAt, receipt };
}

beforeAll(async () => {
  anvil = await startAnvil();
  c = await connect(anvil);
  const [deployer, ...others] = c.accounts;
  [attester, sender, receiver, stranger] = others as [Address, Address, Address, Address];
  const clients = { walletClient: c.wallet(deployer!), publicClient: c.publicClient };
  token = (await deployMockUsdc(clients)).address;
  escrow = (await deployEscrow(clients)).address;
  const usdcAs = getContract({ address: token, abi: mockUsdcAbi, client: { public: c.publicClient, wallet: c.wallet(sender) } }).write;
  await c.mined(usdcAs.mint([sender, usdc('10000000')]));
  await c.mined(usdcAs.approve([escrow, maxUint256]));
});

afterAll(async () => {
  await anvil?.stop();
});

revertEachTest(() => c);

describe('createEscrow', () => {
  it('pulls the amount from the sender and records the escrow', async () => {
    const [senderBefore, escrowBefore] = await balances(sender, escrow);
    const { id, amount, holdDeadline, receipt } = await createEscrow({ amount: usdc('123.456789') });

    expect(await balances(sender, escrow)).toEqual([senderBefore! - amount, escrowBefore! + amount]);
    expect(transfers(receipt).map((t) => t.args)).toEqual([{ from: sender, to: escrow, value: amount }]);
    const [created] = escrowEvents(receipt, 'EscrowCreated');
    const expiresAt = holdDeadline + DEFAULT_EXPIRY_PERIOD;
    expect(created!.args).toEqual({ id, sender, receiver, token, amount, attester, holdDeadline, expiresAt });
    expect(await escrowOf(id)).toEqual({
      sender,
      holdDeadline,
      status: EscrowStatus.Held,
      senderAttested: false,
      receiverAttested: false,
      receiver,
      expiresAt,
      token,
      attester,
      amount,
    });
  });

  it('gives an escrow whose hold deadline has passed no hold and a full expiry period from creation', async () => {
    const id = newId();
    const receipt = await c.mined(escrowAs(sender).createEscrow([id, receiver, token, usdc('1'), attester, 0n]));
    const block = await c.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    expect((await escrowOf(id)).expiresAt).toBe(block.timestamp + DEFAULT_EXPIRY_PERIOD);
    await expectRevert(() => escrowAs(sender).rescind([id]), 'HoldDeadlinePassed', [id, 0n]);
    await expectRevert(() => escrowAs(stranger).claimExpired([id]), 'NotExpired');
    await c.mined(escrowAs(attester).release([id]));
  });

  it('refuses ids that are not a left-padded, non-nil UUID', async () => {
    const deadline = (await c.now()) + HOUR;
    for (const id of [`0x${'0'.repeat(64)}`, `0x01${'0'.repeat(62)}`, `0x${'f'.repeat(64)}`] as const) {
      await expectRevert(() => escrowAs(sender).createEscrow([id, receiver, token, usdc('1'), attester, deadline]), 'InvalidId', [id]);
    }
  });

  it('refuses a zero receiver, the escrow itself as receiver, a token without code and a zero attester', async () => {
    const deadline = (await c.now()) + HOUR;
    const id = newId();
    const cases: [Address, Address, Address, Address][] = [
      [zeroAddress, token, attester, zeroAddress],
      [escrow, token, attester, escrow],
      [receiver, zeroAddress, attester, zeroAddress],
      [receiver, stranger, attester, stranger],
      [receiver, token, zeroAddress, zeroAddress],
    ];
    for (const [to, tokenAddress, attesterAddress, culprit] of cases) {
      await expectRevert(
        () => escrowAs(sender).createEscrow([id, to, tokenAddress, usdc('1'), attesterAddress, deadline]),
        'InvalidAddress',
        [culprit],
      );
    }
  });

  it('refuses a zero amount and one that does not fit 96 bits', async () => {
    const deadline = (await c.now()) + HOUR;
    await expectRevert(() => escrowAs(sender).createEscrow([newId(), receiver, token, 0n, attester, deadline]), 'ZeroAmount', []);
    const tooLarge = 2n ** 96n;
    await expectRevert(() => escrowAs(sender).createEscrow([newId(), receiver, token, tooLarge, attester, deadline]), 'AmountTooLarge', [
      tooLarge,
    ]);
  });

  it('refuses a hold deadline more than a year ahead', async () => {
    const deadline = (await c.now()) + 366n * DAY;
    await expectRevert(() => escrowAs(sender).createEscrow([newId(), receiver, token, usdc('1'), attester, deadline]), 'HoldTooLong');
  });

  it('refuses an id already used, also after that escrow settled', async () => {
    const { id } = await createEscrow();
    const deadline = (await c.now()) + HOUR;
    const again = () => escrowAs(sender).createEscrow([id, receiver, token, usdc('1'), attester, deadline]);
    await expectRevert(again, 'EscrowExists', [id]);
    await c.mined(escrowAs(sender).release([id]));
    await expectRevert(again, 'EscrowExists', [id]);
  });
});

describe('createBatch', () => {
  it('creates one escrow per leg with a single transferFrom of the exact total', async () => {
    const ids = Array.from({ length: 10 }, newId);
    const receivers = Array.from({ length: 10 }, randomAddress);
    const amounts = Array.from({ length: 10 }, (_, i) => usdc(`${i + 1}.25`));
    const total = amounts.reduce((a, b) => a + b, 0n);
    const holdDeadline = (await c.now()) + HOUR;
    const [senderBefore, escrowBefore] = await balances(sender, escrow);

    const receipt = await c.mined(escrowAs(sender).createBatch([ids, receivers, amounts, token, attester, holdDeadline]));

    expect(transfers(receipt).map((t) => t.args)).toEqual([{ from: sender, to: escrow, value: total }]);
    expect(await balances(sender, escrow)).toEqual([senderBefore! - total, escrowBefore! + total]);
    const expiresAt = holdDeadline + DEFAULT_EXPIRY_PERIOD;
    expect(escrowEvents(receipt, 'EscrowCreated').map((l) => l.args)).toEqual(
      ids.map((id, i) => ({ id, sender, receiver: receivers[i], token, amount: amounts[i], attester, holdDeadline, expiresAt })),
    );
    expect(escrowEvents(receipt, 'BatchCreated').map((l) => l.args)).toEqual([{ firstId: ids[0], sender, token, legCount: 10n, total }]);

    // Each leg is an escrow of its own.
    await c.mined(escrowAs(sender).release([ids[3]!]));
    await c.mined(escrowAs(sender).rescind([ids[4]!]));
    expect(await balanceOf(receivers[3]!)).toBe(amounts[3]);
    const statuses = await Promise.all(ids.map(async (id) => (await escrowOf(id)).status));
    expect(statuses).toEqual(ids.map((_, i) => (i === 3 ? EscrowStatus.Released : i === 4 ? EscrowStatus.Rescinded : EscrowStatus.Held)));
  });

  it('refuses an empty batch and arrays of different lengths', async () => {
    const deadline = (await c.now()) + HOUR;
    const write = escrowAs(sender);
    await expectRevert(() => write.createBatch([[], [], [], token, attester, deadline]), 'EmptyBatch', []);
    await expectRevert(
      () => write.createBatch([[newId(), newId()], [receiver], [usdc('1'), usdc('1')], token, attester, deadline]),
      'LengthMismatch',
      [],
    );
    await expectRevert(
      () => write.createBatch([[newId()], [receiver], [usdc('1'), usdc('1')], token, attester, deadline]),
      'LengthMismatch',
      [],
    );
  });

  it('is all or nothing: one bad leg refuses the whole batch', async () => {
    const { id: used } = await createEscrow();
    const deadline = (await c.now()) + HOUR;
    const first = newId();
    const escrowBefore = await balanceOf(escrow);
    const batch = (ids: Hex[], amounts: bigint[]) =>
      escrowAs(sender).createBatch([ids, ids.map(() => receiver), amounts, token, attester, deadline]);

    await expectRevert(() => batch([first, newId(), first], [1n, 2n, 3n]), 'EscrowExists', [first]);
    await expectRevert(() => batch([first, used], [1n, 2n]), 'EscrowExists', [used]);
    await expectRevert(() => batch([first, newId()], [1n, 0n]), 'ZeroAmount', []);
    await expectRevert(() => batch([first, `0x${'1'.repeat(64)}`], [1n, 2n]), 'InvalidId');
    expect((await escrowOf(first)).status).toBe(EscrowStatus.None);
    expect(await balanceOf(escrow)).toBe(escrowBefore);
  });
});

describe('release', () => {
  it('lets the sender release at any time', async () => {
    const { id, amount } = await createEscrow();
    const receipt = await paidOut(receiver, amount, () => c.mined(escrowAs(sender).release([id])));
    expect(escrowEvents(receipt, 'EscrowReleased').map((l) => l.args)).toEqual([
      { id, receiver, by: sender, amount, reason: ReleaseReason.Release },
    ]);
    expect((await escrowOf(id)).status).toBe(EscrowStatus.Released);
  });

  it('lets the attester release only once the hold deadline has passed', async () => {
    const { id, amount, holdDeadline } = await createEscrow();
    await expectRevert(() => escrowAs(attester).release([id]), 'HoldNotEnded', [id, holdDeadline]);
    await c.travel(HOUR + 1n);
    const receiverBefore = await balanceOf(receiver);
    const receipt = await c.mined(escrowAs(attester).release([id]));
    expect(await balanceOf(receiver)).toBe(receiverBefore + amount);
    expect(escrowEvents(receipt, 'EscrowReleased')[0]!.args).toMatchObject({ by: attester, reason: ReleaseReason.Release });
  });

  it('refuses a stranger and the receiver', async () => {
    const { id } = await createEscrow();
    await c.travel(HOUR + 1n);
    await expectRevert(() => escrowAs(stranger).release([id]), 'NotAuthorized', [stranger]);
    await expectRevert(() => escrowAs(receiver).release([id]), 'NotAuthorized', [receiver]);
  });

  it('settles once: every function refuses a settled escrow, and an unknown id', async () => {
    const { id } = await createEscrow();
    await c.mined(escrowAs(sender).release([id]));
    const settled = [id, EscrowStatus.Released];
    await expectRevert(() => escrowAs(sender).release([id]), 'AlreadySettled', settled);
    await expectRevert(() => escrowAs(sender).rescind([id]), 'AlreadySettled', settled);
    await expectRevert(() => escrowAs(attester).refund([id, 0n]), 'AlreadySettled', settled);
    await expectRevert(() => escrowAs(receiver).attestEarlyRelease([id]), 'AlreadySettled', settled);
    await expectRevert(() => escrowAs(attester).freeze([id]), 'AlreadySettled', settled);
    await expectRevert(() => escrowAs(stranger).claimExpired([id]), 'AlreadySettled', settled);

    const unknown = newId();
    await expectRevert(() => escrowAs(sender).release([unknown]), 'UnknownEscrow', [unknown]);
    await expectRevert(() => escrowAs(sender).rescind([unknown]), 'UnknownEscrow', [unknown]);
    await expectRevert(() => escrowAs(attester).refund([unknown, 0n]), 'UnknownEscrow', [unknown]);
    await expectRevert(() => escrowAs(receiver).attestEarlyRelease([unknown]), 'UnknownEscrow', [unknown]);
    await expectRevert(() => escrowAs(attester).freeze([unknown]), 'UnknownEscrow', [unknown]);
    await expectRevert(() => escrowAs(stranger).claimExpired([unknown]), 'UnknownEscrow', [unknown]);
  });
});

describe('early release', () => {
  it('pays the receiver during the hold once the sender and the receiver have both attested', async () => {
    const { id, amount } = await createEscrow();
    const [receiverBefore, escrowBefore] = await balances(receiver, escrow);

    const first = await c.mined(escrowAs(sender).attestEarlyRelease([id]));
    expect(escrowEvents(first, 'EarlyReleaseAttested').map((l) => l.args)).toEqual([{ id, party: sender }]);
    expect(transfers(first)).toEqual([]);
    expect(await escrowOf(id)).toMatchObject({ status: EscrowStatus.Held, senderAttested: true, receiverAttested: false });

    const second = await c.mined(escrowAs(receiver).attestEarlyRelease([id]));
    expect(escrowEvents(second, 'EarlyReleaseAttested').map((l) => l.args)).toEqual([{ id, party: receiver }]);
    expect(escrowEvents(second, 'EscrowReleased').map((l) => l.args)).toEqual([
      { id, receiver, by: receiver, amount, reason: ReleaseReason.EarlyRelease },
    ]);
    expect(await balances(receiver, escrow)).toEqual([receiverBefore! + amount, escrowBefore! - amount]);
    expect((await escrowOf(id)).status).toBe(EscrowStatus.Released);
  });

  it('works in either order and after the hold deadline too', async () => {
    const { id } = await createEscrow();
    await c.mined(escrowAs(receiver).attestEarlyRelease([id]));
    await c.travel(HOUR + 1n);
    const receipt = await c.mined(escrowAs(sender).attestEarlyRelease([id]));
    expect(escrowEvents(receipt, 'EscrowReleased')[0]!.args).toMatchObject({ by: sender, reason: ReleaseReason.EarlyRelease });
  });

  it('refuses anyone but the two parties, and a second attestation by the same party', async () => {
    const { id } = await createEscrow();
    await expectRevert(() => escrowAs(stranger).attestEarlyRelease([id]), 'NotAuthorized', [stranger]);
    await expectRevert(() => escrowAs(attester).attestEarlyRelease([id]), 'NotAuthorized', [attester]);
    await c.mined(escrowAs(sender).attestEarlyRelease([id]));
    await expectRevert(() => escrowAs(sender).attestEarlyRelease([id]), 'AlreadyAttested', [id, sender]);
  });
});

describe('rescind', () => {
  it('returns the funds to the sender during the hold', async () => {
    const { id, amount } = await createEscrow();
    const receipt = await paidOut(sender, amount, () => c.mined(escrowAs(sender).rescind([id])));
    expect(escrowEvents(receipt, 'EscrowRescinded').map((l) => l.args)).toEqual([{ id, sender, amount }]);
    expect((await escrowOf(id)).status).toBe(EscrowStatus.Rescinded);
    await expectRevert(() => escrowAs(sender).release([id]), 'AlreadySettled', [id, EscrowStatus.Rescinded]);
  });

  it('is refused once the hold deadline has passed', async () => {
    const { id, holdDeadline } = await createEscrow();
    await c.travel(HOUR + 1n);
    await expectRevert(() => escrowAs(sender).rescind([id]), 'HoldDeadlinePassed', [id, holdDeadline]);
  });

  it('is the sender’s alone', async () => {
    const { id } = await createEscrow();
    await expectRevert(() => escrowAs(receiver).rescind([id]), 'NotAuthorized', [receiver]);
    await expectRevert(() => escrowAs(attester).rescind([id]), 'NotAuthorized', [attester]);
  });
});

describe('refund (dispute outcome)', () => {
  it.each([0n, 2_500n, 10_000n])('splits %i bps exactly: refunded + paid == amount', async (bps) => {
    const amount = 1_000_003n; // odd, so that a split must round
    const { id } = await createEscrow({ amount });
    await c.travel(HOUR + 1n);
    const [senderBefore, receiverBefore, escrowBefore] = await balances(sender, receiver, escrow);

    const receipt = await c.mined(escrowAs(attester).refund([id, bps]));

    const refundedToSender = (amount * bps) / MAX_BPS;
    const paidToReceiver = amount - refundedToSender;
    expect(refundedToSender + paidToReceiver).toBe(amount);
    expect(escrowEvents(receipt, 'EscrowRefunded').map((l) => l.args)).toEqual([
      { id, sender, receiver, refundedToSender, paidToReceiver, refundBps: bps },
    ]);
    expect(await balances(sender, receiver, escrow)).toEqual([
      senderBefore! + refundedToSender,
      receiverBefore! + paidToReceiver,
      escrowBefore! - amount,
    ]);
    // No zero-value transfers.
    expect(transfers(receipt).length).toBe(bps === 0n || bps === MAX_BPS ? 1 : 2);
    expect((await escrowOf(id)).status).toBe(EscrowStatus.Refunded);
  });

  it('allows a full refund during the hold, but no split that pays the receiver', async () => {
    const { id, amount, holdDeadline } = await createEscrow();
    await expectRevert(() => escrowAs(attester).refund([id, 2_500n]), 'HoldNotEnded', [id, holdDeadline]);
    await expectRevert(() => escrowAs(attester).refund([id, 0n]), 'HoldNotEnded', [id, holdDeadline]);
    const senderBefore = await balanceOf(sender);
    await c.mined(escrowAs(attester).refund([id, MAX_BPS]));
    expect(await balanceOf(sender)).toBe(senderBefore + amount);
  });

  it('refuses more than 10000 bps and any caller but the attester', async () => {
    const { id } = await createEscrow();
    await c.travel(HOUR + 1n);
    await expectRevert(() => escrowAs(attester).refund([id, 10_001n]), 'InvalidBps', [10_001n]);
    await expectRevert(() => escrowAs(sender).refund([id, MAX_BPS]), 'NotAuthorized', [sender]);
    await expectRevert(() => escrowAs(receiver).refund([id, 0n]), 'NotAuthorized', [receiver]);
  });
});

describe('expiry escape (lost attester key, silent sender)', () => {
  it('lets anyone pay the receiver once the escrow has expired', async () => {
    const { id, amount, expiresAt } = await createEscrow();
    await c.travel(HOUR + DEFAULT_EXPIRY_PERIOD - DAY);
    await expectRevert(() => escrowAs(stranger).claimExpired([id]), 'NotExpired', [id, expiresAt]);
    await c.travel(DAY);
    const receiverBefore = await balanceOf(receiver);
    const receipt = await c.mined(escrowAs(stranger).claimExpired([id]));
    expect(await balanceOf(receiver)).toBe(receiverBefore + amount);
    expect(escrowEvents(receipt, 'EscrowReleased').map((l) => l.args)).toEqual([
      { id, receiver, by: stranger, amount, reason: ReleaseReason.Expiry },
    ]);
  });

  it('a dispute freeze keeps the escape closed until it lapses, and the attester can still resolve meanwhile', async () => {
    const { id, expiresAt } = await createEscrow();
    await c.travel(HOUR + DEFAULT_EXPIRY_PERIOD - DAY);
    const receipt = await c.mined(escrowAs(attester).freeze([id]));
    const frozenAt = (await c.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp;
    const frozenUntil = frozenAt + DEFAULT_FREEZE_PERIOD;
    expect(escrowEvents(receipt, 'EscrowFrozen').map((l) => l.args)).toEqual([{ id, attester, expiresAt: frozenUntil }]);

    await c.travel(2n * DAY); // past the original expiry
    expect(await c.now()).toBeGreaterThan(expiresAt);
    await expectRevert(() => escrowAs(stranger).claimExpired([id]), 'NotExpired', [id, frozenUntil]);

    // A live attester settles the dispute...
    const snapshotBeforeRuling = await c.testClient.snapshot();
    await c.mined(escrowAs(attester).refund([id, MAX_BPS]));
    await c.testClient.revert({ id: snapshotBeforeRuling });

    // ...a lost one lets the freeze lapse, and the receiver is paid.
    await c.travel(DEFAULT_FREEZE_PERIOD);
    await c.mined(escrowAs(stranger).claimExpired([id]));
    expect((await escrowOf(id)).status).toBe(EscrowStatus.Released);
  });

  it('a freeze never shortens the expiry, and only the attester may freeze', async () => {
    const { id, expiresAt } = await createEscrow();
    const receipt = await c.mined(escrowAs(attester).freeze([id]));
    expect(escrowEvents(receipt, 'EscrowFrozen')[0]!.args.expiresAt).toBe(expiresAt);
    expect((await escrowOf(id)).expiresAt).toBe(expiresAt);
    await expectRevert(() => escrowAs(sender).freeze([id]), 'NotAuthorized', [sender]);
    await expectRevert(() => escrowAs(stranger).freeze([id]), 'NotAuthorized', [stranger]);
  });

  it('refuses a freeze once the escrow has expired', async () => {
    const { id, expiresAt } = await createEscrow();
    await c.travel(HOUR + DEFAULT_EXPIRY_PERIOD + 1n);
    await expectRevert(() => escrowAs(attester).freeze([id]), 'EscrowExpired', [id, expiresAt]);
  });
});

describe('pay (a forwarded payment, no escrow)', () => {
  const payAs = (account: Address) => escrowAs(account).pay;
  const paymentIdUsed = (id: Hex) =>
    c.publicClient.readContract({ address: escrow, abi: holdfastEscrowAbi, functionName: 'paymentIdUsed', args: [id] });

  it('moves the amount from the sender straight to the receiver and logs the id with the terms', async () => {
    const id = newId();
    const amount = usdc('42.000001');
    const [senderBefore, receiverBefore, escrowBefore] = await balances(sender, receiver, escrow);
    const receipt = await c.mined(payAs(sender)([id, receiver, token, amount]));

    expect(await balances(sender, receiver, escrow)).toEqual([senderBefore! - amount, receiverBefore! + amount, escrowBefore]);
    expect(transfers(receipt).map((t) => t.args)).toEqual([{ from: sender, to: receiver, value: amount }]);
    const forwarded = escrowEvents(receipt, 'TransferForwarded');
    expect(forwarded.map((l) => l.args)).toEqual([{ id, sender, receiver, token, amount }]);
    expect(forwarded[0]!.address.toLowerCase()).toBe(escrow.toLowerCase());
    expect(await paymentIdUsed(id)).toBe(true);
    // Nothing is held: there is no escrow under the id.
    expect((await escrowOf(id)).status).toBe(EscrowStatus.None);
  });

  it('refuses an id used before, by pay or by an escrow, whoever calls', async () => {
    const id = newId();
    await c.mined(payAs(sender)([id, receiver, token, usdc('1')]));
    await expectRevert(() => payAs(sender)([id, receiver, token, usdc('1')]), 'PaymentIdUsed', [id]);
    await expectRevert(() => payAs(stranger)([id, stranger, token, usdc('1')]), 'PaymentIdUsed', [id]);
    const { id: escrowId } = await createEscrow();
    await expectRevert(() => payAs(sender)([escrowId, receiver, token, usdc('1')]), 'EscrowExists', [escrowId]);
    // Nor may an escrow take an id a payment used: an id names one transaction.
    const later = (await c.now()) + HOUR;
    await expectRevert(() => escrowAs(sender).createEscrow([id, receiver, token, usdc('1'), attester, later]), 'PaymentIdUsed', [id]);
  });

  it('refuses a bad id, receiver, token or amount, and moves nothing', async () => {
    const [senderBefore, receiverBefore] = await balances(sender, receiver);
    await expectRevert(() => payAs(sender)([zeroHash, receiver, token, usdc('1')]), 'InvalidId', [zeroHash]);
    const notUuid = `0x${'11'.repeat(32)}` as Hex;
    await expectRevert(() => payAs(sender)([notUuid, receiver, token, usdc('1')]), 'InvalidId', [notUuid]);
    await expectRevert(() => payAs(sender)([newId(), zeroAddress, token, usdc('1')]), 'InvalidAddress', [zeroAddress]);
    await expectRevert(() => payAs(sender)([newId(), escrow, token, usdc('1')]), 'InvalidAddress', [escrow]);
    const noCode = randomAddress();
    await expectRevert(() => payAs(sender)([newId(), receiver, noCode, usdc('1')]), 'InvalidAddress', [noCode]);
    await expectRevert(() => payAs(sender)([newId(), receiver, token, 0n]), 'ZeroAmount', []);
    expect(await balances(sender, receiver)).toEqual([senderBefore, receiverBefore]);
  });

  it('needs the allowance of the sender, as createEscrow does', async () => {
    // The token's own error (not in the escrow's ABI): the call fails and no id is used.
    const id = newId();
    await expect(payAs(stranger)([id, receiver, token, usdc('1')])).rejects.toThrow(/reverted/);
    expect(await paymentIdUsed(id)).toBe(false);
  });

  it('costs about a plain transfer and one storage slot', async () => {
    await c.mined(payAs(sender)([newId(), receiver, token, usdc('1')])); // the receiver's balance is then non-zero
    gas.pay = (await c.mined(payAs(sender)([newId(), receiver, token, usdc('1')]))).gasUsed;
    expect(gas.pay).toBeLessThan(90_000n);
  });
});

describe('gas', () => {
  it('stays within budget for create, batch of 10 and release', async () => {
    await createEscrow(); // the escrow's token balance is then non-zero, as in steady use
    gas.createEscrow = (await createEscrow()).receipt.gasUsed;
    const ids = Array.from({ length: 10 }, newId);
    const holdDeadline = (await c.now()) + HOUR;
    const batch = await c.mined(
      escrowAs(sender).createBatch([
        ids,
        Array.from({ length: 10 }, randomAddress),
        ids.map(() => usdc('10')),
        token,
        attester,
        holdDeadline,
      ]),
    );
    gas.createBatch10 = batch.gasUsed;
    await c.travel(HOUR + 1n);
    gas.releaseByAttester = (await c.mined(escrowAs(attester).release([ids[0]!]))).gasUsed;
    gas.refund2500 = (await c.mined(escrowAs(attester).refund([ids[1]!, 2_500n]))).gasUsed;
    console.info('gas used:', Object.fromEntries(Object.entries(gas).map(([k, v]) => [k, Number(v)])));

    expect(gas.createEscrow).toBeLessThan(160_000n);
    expect(gas.createBatch10).toBeLessThan(1_050_000n);
    expect(gas.createBatch10).toBeLessThan(10n * gas.createEscrow);
    expect(gas.releaseByAttester).toBeLessThan(80_000n);
  });
});

it('exercises every custom error of the ABI (those not covered here are in hostile-tokens and deploy tests)', () => {
  const elsewhere = ['InvalidPeriod', 'TransferAmountMismatch', 'ReentrancyGuardReentrantCall', 'SafeERC20FailedOperation'];
  // The one-signature funding paths' own errors are exercised in funding.test.ts.
  elsewhere.push('AuthorizationExpired', 'InvalidSignature', 'PermitFailed');
  const all = holdfastEscrowAbi.filter((item) => item.type === 'error').map((item) => item.name);
  expect(all.filter((name) => !revertsSeen.has(name) && !elsewhere.includes(name))).toEqual([]);
});
