/**
 * One-signature funding: `createEscrowWithAuthorization` (EIP-3009) and `createEscrowWithPermit`
 * (EIP-2612 + the escrow's EscrowAuthorization). The payer is a fresh key with no ETH: it only signs;
 * a relayer (an anvil account) submits and pays the gas.
 */
import { randomUUID } from 'node:crypto';
import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import {
  type Abi,
  type Address,
  getAddress,
  getContract,
  type Hex,
  keccak256,
  type LocalAccount,
  parseEventLogs,
  parseUnits,
  serializeSignature,
  type TransactionReceipt,
  toHex,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledContract } from '../scripts/compile.js';
import {
  authorizationNonce,
  createEscrowWithAuthorizationArgs,
  createEscrowWithPermitArgs,
  DEFAULT_EXPIRY_PERIOD,
  deployEscrow,
  deployMockUsdc,
  EscrowStatus,
  type EscrowTerms,
  escrowAuthorizationTypes,
  escrowDomain,
  holdfastEscrowAbi,
  mockUsdcAbi,
  readEip712Domain,
  type SignedAuthorization,
  type SignedPermitFunding,
  signAuthorizationFunding,
  signPermitFunding,
  tokenAuthorizationTypes,
  toPermit,
  uuidToOnchainId,
} from '../src/index.js';
import { type Connection, connect, expectRevert, revertEachTest, revertsSeen } from './support/chain.js';
import { compileFixtures } from './support/fixtures.js';

const HOUR = 3_600n;
const usdc = (amount: string) => parseUnits(amount, 6);
const newId = () => uuidToOnchainId(randomUUID());
const newKey = () => privateKeyToAccount(generatePrivateKey());
/** The escrow's ABI with the token's errors, so a revert the token raises inside the escrow's call decodes. */
const escrowAndTokenAbi = [...holdfastEscrowAbi, ...mockUsdcAbi.filter((item) => item.type === 'error')] as const;

let anvil: Anvil;
let c: Connection;
let deployer: Address;
let attester: Address;
let receiver: Address;
let relayer: Address;
let token: Address;
let otherToken: Address;
let escrow: Address;
let otherEscrow: Address;
let payer: LocalAccount;
let stranger: LocalAccount;
let fixtures: Map<string, CompiledContract>;

const escrowAs = (account: Address, address: Address = escrow) =>
  getContract({ address, abi: escrowAndTokenAbi, client: { public: c.publicClient, wallet: c.wallet(account) } }).write;
const escrowOf = (id: Hex) =>
  c.publicClient.readContract({ address: escrow, abi: holdfastEscrowAbi, functionName: 'getEscrow', args: [id] });
const tokenAs = (account: Address, address: Address = token) =>
  getContract({ address, abi: mockUsdcAbi, client: { public: c.publicClient, wallet: c.wallet(account) } }).write;
const balanceOf = (account: Address, address: Address = token) =>
  c.publicClient.readContract({ address, abi: mockUsdcAbi, functionName: 'balanceOf', args: [account] });
const created = (receipt: TransactionReceipt) => parseEventLogs({ abi: holdfastEscrowAbi, logs: receipt.logs, eventName: 'EscrowCreated' });

/** Terms from `payer` (by default) to `receiver`, held for an hour. */
async function termsFor(overrides: Partial<EscrowTerms> = {}): Promise<EscrowTerms> {
  return {
    id: newId(),
    sender: payer.address,
    receiver,
    token,
    amount: usdc('250'),
    attester,
    holdDeadline: (await c.now()) + HOUR,
    ...overrides,
  };
}

/** The payer's EIP-3009 funding of `terms`, valid from now for an hour unless told. */
async function authorize(
  terms: EscrowTerms,
  options: { signer?: LocalAccount; validAfter?: bigint; validBefore?: bigint; escrowAddress?: Address } = {},
) {
  const now = await c.now();
  return signAuthorizationFunding({
    client: c.publicClient,
    signer: options.signer ?? payer,
    escrow: options.escrowAddress ?? escrow,
    terms,
    window: { validAfter: options.validAfter ?? now - 1n, validBefore: options.validBefore ?? now + HOUR },
  });
}

/** The relayer submits `signed`, possibly with its terms changed. */
const submitAuthorization = (signed: SignedAuthorization, changed: Partial<EscrowTerms> = {}, address: Address = escrow) =>
  escrowAs(relayer, address).createEscrowWithAuthorization(
    createEscrowWithAuthorizationArgs({ ...signed, terms: { ...signed.terms, ...changed } }),
  );

/** The payer's EIP-2612 funding of `terms` (permit + EscrowAuthorization), valid for an hour unless told. */
async function permitFunding(terms: EscrowTerms, options: { signer?: LocalAccount; deadline?: bigint } = {}) {
  return signPermitFunding({
    client: c.publicClient,
    signer: options.signer ?? payer,
    escrow,
    terms,
    deadline: options.deadline ?? (await c.now()) + HOUR,
  });
}

/** The relayer submits `signed`, possibly with its terms changed. */
const submitPermit = (signed: SignedPermitFunding, changed: Partial<EscrowTerms> = {}) =>
  escrowAs(relayer).createEscrowWithPermit(createEscrowWithPermitArgs({ ...signed, terms: { ...signed.terms, ...changed } }));
const allowance = (owner: Address) =>
  c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'allowance', args: [owner, escrow] });
const permitNonce = (owner: Address) =>
  c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'nonces', args: [owner] });

/** Deploys the ERC-1271 fixture wallet owned by `owner` and funds it with the token. */
async function smartWalletOf(owner: Address, amount: bigint): Promise<Address> {
  const wallet = fixtures.get('SmartWallet')!;
  const hash = await c.wallet(relayer).deployContract({ abi: wallet.abi as Abi, bytecode: wallet.bytecode, args: [owner] });
  const address = getAddress((await c.mined(hash)).contractAddress!);
  await c.mined(tokenAs(relayer).mint([address, amount]));
  return address;
}

beforeAll(async () => {
  fixtures = compileFixtures();
  anvil = await startAnvil();
  c = await connect(anvil);
  [deployer, attester, receiver, relayer] = c.accounts as [Address, Address, Address, Address];
  const clients = { walletClient: c.wallet(deployer), publicClient: c.publicClient };
  token = (await deployMockUsdc(clients)).address;
  otherToken = (await deployMockUsdc(clients)).address;
  escrow = (await deployEscrow(clients)).address;
  otherEscrow = (await deployEscrow(clients)).address;
  payer = newKey();
  stranger = newKey();
  await c.mined(tokenAs(relayer).mint([payer.address, usdc('1000')]));
  await c.mined(tokenAs(relayer, otherToken).mint([payer.address, usdc('1000')]));
});

afterAll(async () => {
  await anvil?.stop();
});

revertEachTest(() => c);

describe('createEscrowWithAuthorization (EIP-3009)', () => {
  it('funds the escrow from a payer without ETH: the relayer pays the gas, the payer is the sender', async () => {
    expect(await c.publicClient.getBalance({ address: payer.address })).toBe(0n);
    const terms = await termsFor();
    const signed = await authorize(terms);
    const [payerBefore, escrowBefore] = [await balanceOf(payer.address), await balanceOf(escrow)];

    const receipt = await c.mined(submitAuthorization(signed));

    expect(receipt.from).toBe(relayer.toLowerCase());
    expect(await c.publicClient.getBalance({ address: payer.address })).toBe(0n);
    expect([await balanceOf(payer.address), await balanceOf(escrow)]).toEqual([payerBefore - terms.amount, escrowBefore + terms.amount]);
    const expiresAt = terms.holdDeadline + DEFAULT_EXPIRY_PERIOD;
    expect(created(receipt).map((e) => e.args)).toEqual([{ ...terms, expiresAt }]);
    const record = await escrowOf(terms.id);
    expect(record).toMatchObject({ sender: payer.address, receiver, token, amount: terms.amount, attester, status: EscrowStatus.Held });
    // The token consumed exactly the nonce derived from the terms.
    const used = parseEventLogs({ abi: mockUsdcAbi, logs: receipt.logs, eventName: 'AuthorizationUsed' });
    expect(used.map((e) => e.args)).toEqual([{ authorizer: payer.address, nonce: signed.nonce }]);
    expect(
      await c.publicClient.readContract({
        address: token,
        abi: mockUsdcAbi,
        functionName: 'authorizationState',
        args: [payer.address, signed.nonce],
      }),
    ).toBe(true);
  });

  it('derives the nonce off chain exactly as the contract does', async () => {
    const terms = await termsFor();
    const onChain = await c.publicClient.readContract({
      address: escrow,
      abi: holdfastEscrowAbi,
      functionName: 'authorizationNonce',
      args: [terms.id, terms.sender, terms.receiver, terms.token, terms.amount, terms.attester, terms.holdDeadline],
    });
    expect(authorizationNonce(anvil.chainId, escrow, terms)).toBe(onChain);
    // Another escrow, another chain: another nonce.
    expect(authorizationNonce(anvil.chainId, otherEscrow, terms)).not.toBe(onChain);
    expect(authorizationNonce(8453, escrow, terms)).not.toBe(onChain);
  });

  it('refuses an authorization that has expired (validBefore passed) and records nothing', async () => {
    const terms = await termsFor();
    const signed = await authorize(terms, { validAfter: 0n, validBefore: (await c.now()) + 60n });
    await c.travel(61n);
    await expectRevert(() => submitAuthorization(signed), 'Error', ['FiatTokenV2: authorization is expired']);
    expect((await escrowOf(terms.id)).status).toBe(EscrowStatus.None);
  });

  it('refuses an authorization that is not yet valid, and accepts it once it is', async () => {
    const terms = await termsFor();
    const signed = await authorize(terms, { validAfter: (await c.now()) + 60n });
    await expectRevert(() => submitAuthorization(signed), 'Error', ['FiatTokenV2: authorization is not yet valid']);
    await c.travel(61n);
    await c.mined(submitAuthorization(signed));
  });

  it('uses a signature once: a replay is refused, and so is a nonce the payer canceled', async () => {
    const terms = await termsFor();
    const signed = await authorize(terms);
    await c.mined(submitAuthorization(signed));
    await expectRevert(() => submitAuthorization(signed), 'EscrowExists', [terms.id]);

    // The payer withdraws a second, unused authorization (the relayer may submit the cancellation).
    const second = await authorize(await termsFor());
    const cancel = await payer.signTypedData({
      domain: await readEip712Domain(c.publicClient, token),
      types: { CancelAuthorization: tokenAuthorizationTypes.CancelAuthorization },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: second.nonce },
    });
    await c.mined(tokenAs(relayer).cancelAuthorization([payer.address, second.nonce, cancel]));
    await expectRevert(() => submitAuthorization(second), 'Error', ['FiatTokenV2: authorization is used or canceled']);
    expect((await escrowOf(second.terms.id)).status).toBe(EscrowStatus.None);
  });

  it('cannot be front-run into a plain transfer: only the escrow may submit it to the token', async () => {
    const terms = await termsFor();
    const signed = await authorize(terms);
    const { sender, amount } = terms;
    await expectRevert(
      () =>
        tokenAs(relayer).receiveWithAuthorization([
          sender,
          escrow,
          amount,
          signed.validAfter,
          signed.validBefore,
          signed.nonce,
          signed.signature,
        ]),
      'Error',
      ['FiatTokenV2: caller must be the payee'],
    );
    // As a TransferWithAuthorization (anyone may submit those) the signature is not valid: another type.
    await expectRevert(
      () =>
        tokenAs(relayer).transferWithAuthorization([
          sender,
          escrow,
          amount,
          signed.validAfter,
          signed.validBefore,
          signed.nonce,
          signed.signature,
        ]),
      'Error',
      ['FiatTokenV2: invalid signature'],
    );
    await c.mined(submitAuthorization(signed));
  });

  it('funds these terms or nothing: every changed term is refused', async () => {
    const terms = await termsFor();
    const signed = await authorize(terms);
    const changes: Partial<EscrowTerms>[] = [
      { id: newId() },
      { receiver: newKey().address },
      { amount: terms.amount - 1n },
      { amount: terms.amount + 1n },
      { attester: newKey().address },
      { holdDeadline: terms.holdDeadline + 1n },
      { holdDeadline: 0n },
      { token: otherToken },
    ];
    for (const change of changes) {
      await expectRevert(() => submitAuthorization(signed, change), 'Error', ['FiatTokenV2: invalid signature']);
    }
    // Another escrow (the nonce and `to` name this one).
    await expectRevert(() => submitAuthorization(signed, {}, otherEscrow), 'Error', ['FiatTokenV2: invalid signature']);
    // Another sender: the authorization is the payer's, not theirs.
    await expectRevert(() => submitAuthorization(signed, { sender: relayer }), 'Error', ['FiatTokenV2: invalid signature']);
    expect(await balanceOf(escrow)).toBe(0n);
    // The untouched signature still works.
    await c.mined(submitAuthorization(signed));
  });

  it('refuses a signature by anyone but the payer', async () => {
    const terms = await termsFor();
    const signed = await authorize(terms, { signer: stranger });
    await expectRevert(() => submitAuthorization(signed), 'Error', ['FiatTokenV2: invalid signature']);
  });

  it("refuses when the payer's balance is short", async () => {
    const terms = await termsFor({ amount: usdc('1000.000001') });
    const signed = await authorize(terms);
    await expectRevert(() => submitAuthorization(signed), 'ERC20InsufficientBalance', [payer.address, usdc('1000'), terms.amount]);
    expect((await escrowOf(terms.id)).status).toBe(EscrowStatus.None);
  });

  it('checks the terms as createEscrow does (sender, id, receiver, amount)', async () => {
    const signed = await authorize(await termsFor());
    await expectRevert(() => submitAuthorization(signed, { sender: zeroAddress }), 'InvalidAddress', [zeroAddress]);
    await expectRevert(() => submitAuthorization(signed, { receiver: escrow }), 'InvalidAddress', [escrow]);
    await expectRevert(() => submitAuthorization(signed, { amount: 0n }), 'ZeroAmount');
    const badId = `0x${'ff'.repeat(32)}` as Hex;
    await expectRevert(() => submitAuthorization(signed, { id: badId }), 'InvalidId', [badId]);
  });

  it('accepts an ERC-1271 smart wallet as the payer (bytes signature form)', async () => {
    const wallet = await smartWalletOf(payer.address, usdc('300'));
    const terms = await termsFor({ sender: wallet });
    // The wallet's owner signs; the token asks the wallet (ERC-1271) whether that is its signature.
    const receipt = await c.mined(submitAuthorization(await authorize(terms)));
    expect(created(receipt)[0]!.args.sender).toBe(wallet);
    expect(await balanceOf(wallet)).toBe(usdc('50'));
    // Another key's signature is not the wallet's.
    const other = await termsFor({ sender: wallet, amount: usdc('10') });
    const forged = await authorize(other, { signer: stranger });
    await expectRevert(() => submitAuthorization(forged), 'Error', ['FiatTokenV2: invalid signature']);
  });
});

describe('createEscrowWithPermit (EIP-2612 + EscrowAuthorization)', () => {
  it('funds the escrow from a payer without ETH: the relayer pays the gas, the payer is the sender', async () => {
    const terms = await termsFor();
    const signed = await permitFunding(terms);
    const payerBefore = await balanceOf(payer.address);

    const receipt = await c.mined(submitPermit(signed));

    expect(receipt.from).toBe(relayer.toLowerCase());
    expect(await c.publicClient.getBalance({ address: payer.address })).toBe(0n);
    expect(await balanceOf(payer.address)).toBe(payerBefore - terms.amount);
    expect(await balanceOf(escrow)).toBe(terms.amount);
    expect(created(receipt).map((e) => e.args)).toEqual([{ ...terms, expiresAt: terms.holdDeadline + DEFAULT_EXPIRY_PERIOD }]);
    expect((await escrowOf(terms.id)).sender).toBe(payer.address);
    // The permit gave exactly the amount, and the escrow took it.
    expect(await allowance(payer.address)).toBe(0n);
    expect(await permitNonce(payer.address)).toBe(1n);
  });

  it('uses an authorization once: the id cannot be created again', async () => {
    const terms = await termsFor();
    const signed = await permitFunding(terms);
    await c.mined(submitPermit(signed));
    await expectRevert(() => submitPermit(signed), 'EscrowExists', [terms.id]);
  });

  it('funds these terms or nothing: every changed term is refused with InvalidSignature', async () => {
    const terms = await termsFor();
    const signed = await permitFunding(terms);
    const changes: Partial<EscrowTerms>[] = [
      { id: newId() },
      { receiver: newKey().address },
      { amount: terms.amount - 1n },
      { attester: newKey().address },
      { holdDeadline: terms.holdDeadline + 1n },
      { token: otherToken },
    ];
    for (const change of changes) {
      await expectRevert(() => submitPermit(signed, change), 'InvalidSignature', [payer.address]);
    }
    // The deadline is signed too: a relayer cannot stretch it.
    const stretched = { ...signed, permit: { ...signed.permit, deadline: signed.permit.deadline + HOUR } };
    await expectRevert(() => submitPermit(stretched), 'InvalidSignature', [payer.address]);
    // Another sender: the payer's signature is not theirs.
    await expectRevert(() => submitPermit(signed, { sender: relayer }), 'InvalidSignature', [relayer]);
    expect(await balanceOf(escrow)).toBe(0n);
    await c.mined(submitPermit(signed));
  });

  it('refuses an escrow authorization signed by anyone but the payer, even with a valid permit', async () => {
    const terms = await termsFor();
    const signed = await permitFunding(terms);
    const forged = await permitFunding(terms, { signer: stranger });
    await expectRevert(() => submitPermit({ ...signed, signature: forged.signature }), 'InvalidSignature', [payer.address]);
    expect(await allowance(payer.address)).toBe(0n);
  });

  it('refuses an expired authorization', async () => {
    const terms = await termsFor();
    const signed = await permitFunding(terms, { deadline: (await c.now()) + 60n });
    await c.travel(61n);
    await expectRevert(() => submitPermit(signed), 'AuthorizationExpired', [signed.permit.deadline]);
  });

  it('still funds when the permit was front-run to the token (its allowance is there)', async () => {
    const terms = await termsFor();
    const signed = await permitFunding(terms);
    const { deadline, v, r, s } = signed.permit;
    await c.mined(tokenAs(deployer).permit([payer.address, escrow, terms.amount, deadline, v, r, s]));
    expect(await allowance(payer.address)).toBe(terms.amount);
    const receipt = await c.mined(submitPermit(signed));
    expect(created(receipt)[0]!.args.sender).toBe(payer.address);
    expect(await balanceOf(escrow)).toBe(terms.amount);
  });

  it('refuses with PermitFailed when the permit is invalid and no allowance covers the amount', async () => {
    const terms = await termsFor();
    const signed = await permitFunding(terms);
    const bad = await permitFunding(terms, { signer: stranger });
    await expectRevert(() => submitPermit({ ...signed, permit: bad.permit }), 'PermitFailed', [token, payer.address]);
    // A permit for less than the amount: the same.
    const smaller = await permitFunding({ ...terms, amount: terms.amount - 1n });
    await expectRevert(() => submitPermit({ ...signed, permit: smaller.permit }), 'PermitFailed', [token, payer.address]);
    expect((await escrowOf(terms.id)).status).toBe(EscrowStatus.None);
  });

  it("refuses when the payer's balance is short", async () => {
    const terms = await termsFor({ amount: usdc('1000.000001') });
    const signed = await permitFunding(terms);
    await expectRevert(() => submitPermit(signed), 'ERC20InsufficientBalance', [payer.address, usdc('1000'), terms.amount]);
    expect((await escrowOf(terms.id)).status).toBe(EscrowStatus.None);
  });

  it('accepts an ERC-1271 smart wallet as the payer', async () => {
    const wallet = await smartWalletOf(payer.address, usdc('300'));
    const terms = await termsFor({ sender: wallet });
    const receipt = await c.mined(submitPermit(await permitFunding(terms)));
    expect(created(receipt)[0]!.args.sender).toBe(wallet);
    expect(await balanceOf(wallet)).toBe(usdc('50'));
    const forged = await permitFunding(await termsFor({ sender: wallet }), { signer: stranger });
    await expectRevert(() => submitPermit(forged), 'InvalidSignature', [wallet]);
  });
});

describe('gas', () => {
  it('stays within budget for both funding paths (escrow already holding the token)', async () => {
    await c.mined(submitAuthorization(await authorize(await termsFor())));
    const authorization = (await c.mined(submitAuthorization(await authorize(await termsFor())))).gasUsed;
    const permit = (await c.mined(submitPermit(await permitFunding(await termsFor())))).gasUsed;
    console.info('gas used:', { createEscrowWithAuthorization: Number(authorization), createEscrowWithPermit: Number(permit) });
    expect(authorization).toBeLessThan(200_000n);
    expect(permit).toBeLessThan(220_000n);
  });
});

describe('typed data of src/authorization.ts', () => {
  /** EIP-712 encodeType of a type without nested structs. */
  const typeHash = (name: string, fields: readonly { name: string; type: string }[]) =>
    keccak256(toHex(`${name}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`));
  const read = (address: Address, abi: typeof holdfastEscrowAbi | typeof mockUsdcAbi, functionName: string) =>
    c.publicClient.readContract({ address, abi, functionName } as never) as Promise<Hex>;

  it('declares the same message types as the contracts', async () => {
    expect(typeHash('EscrowAuthorization', escrowAuthorizationTypes.EscrowAuthorization)).toBe(
      await read(escrow, holdfastEscrowAbi, 'ESCROW_AUTHORIZATION_TYPEHASH'),
    );
    for (const [name, constant] of [
      ['ReceiveWithAuthorization', 'RECEIVE_WITH_AUTHORIZATION_TYPEHASH'],
      ['TransferWithAuthorization', 'TRANSFER_WITH_AUTHORIZATION_TYPEHASH'],
      ['CancelAuthorization', 'CANCEL_AUTHORIZATION_TYPEHASH'],
      ['Permit', 'PERMIT_TYPEHASH'],
    ] as const) {
      expect(typeHash(name, tokenAuthorizationTypes[name])).toBe(await read(token, mockUsdcAbi, constant));
    }
  });

  it("reads the escrow's domain as escrowDomain builds it, and the token's without a salt", async () => {
    expect(await readEip712Domain(c.publicClient, escrow)).toEqual(escrowDomain(anvil.chainId, escrow));
    expect(await readEip712Domain(c.publicClient, token)).toEqual({
      name: 'USDC',
      version: '2',
      chainId: anvil.chainId,
      verifyingContract: token,
    });
  });

  it('splits a signature into the permit tuple (v 27 or 28)', async () => {
    const signature = await payer.signMessage({ message: 'x' });
    const permit = toPermit(5n, signature);
    expect([27, 28]).toContain(permit.v);
    expect(serializeSignature({ r: permit.r, s: permit.s, v: BigInt(permit.v) })).toBe(signature);
  });
});

it('exercises the funding paths\u2019 custom errors', () => {
  const names = ['EscrowExists', 'InvalidAddress', 'ZeroAmount', 'InvalidId', 'ERC20InsufficientBalance'];
  for (const name of [...names, 'AuthorizationExpired', 'InvalidSignature', 'PermitFailed']) {
    expect(revertsSeen.has(name)).toBe(true);
  }
});
