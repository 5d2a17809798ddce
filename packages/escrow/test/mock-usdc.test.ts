import { ANVIL_MNEMONIC, type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { type Abi, type Address, domainSeparator, getContract, type Hex, keccak256, parseEventLogs, parseSignature, toHex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployMockUsdc, mockUsdcAbi, readEip712Domain, tokenAuthorizationTypes } from '../src/index.js';
import { type Connection, connect, expectRevert, revertEachTest } from './support/chain.js';
import { compileFixtures } from './support/fixtures.js';

const account = (addressIndex: number) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex });
const payer = account(2);
const payee = account(3);
const stranger = account(4);
const HOUR = 3_600n;

let anvil: Anvil;
let c: Connection;
let token: Address;

const usdcAs = (who: Address) =>
  getContract({ address: token, abi: mockUsdcAbi, client: { public: c.publicClient, wallet: c.wallet(who) } }).write;
const balanceOf = (who: Address) =>
  c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'balanceOf', args: [who] });
const authorizationState = (who: Address, nonce: Hex) =>
  c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'authorizationState', args: [who, nonce] });
const randomNonce = () => keccak256(toHex(crypto.randomUUID()));

/** The token's domain, as a client must read it. */
const domain = () => readEip712Domain(c.publicClient, token);

async function signAuthorization(
  signer: typeof payer,
  kind: 'TransferWithAuthorization' | 'ReceiveWithAuthorization',
  message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
) {
  return signer.signTypedData({ domain: await domain(), types: { [kind]: tokenAuthorizationTypes[kind] }, primaryType: kind, message });
}

beforeAll(async () => {
  anvil = await startAnvil();
  c = await connect(anvil);
  token = (await deployMockUsdc({ walletClient: c.wallet(c.accounts[0]!), publicClient: c.publicClient })).address;
  await c.mined(usdcAs(payer.address).mint([payer.address, 1_000_000n]));
});

afterAll(async () => {
  await anvil?.stop();
});

revertEachTest(() => c);

describe('MockUSDC', () => {
  it('keeps 6 decimals and declares the EIP-712 domain of USDC v2 through eip712Domain()', async () => {
    expect(await c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'decimals' })).toBe(6);
    const d = await domain();
    expect(d).toEqual({ name: 'USDC', version: '2', chainId: anvil.chainId, verifyingContract: token });
    expect(await c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'DOMAIN_SEPARATOR' })).toBe(
      domainSeparator({ domain: d }),
    );
  });
});

describe('EIP-2612 permit', () => {
  it('sets the allowance once per signature (the nonce moves on)', async () => {
    const deadline = (await c.now()) + HOUR;
    const message = { owner: payer.address, spender: payee.address, value: 500n, nonce: 0n, deadline };
    const signature = await payer.signTypedData({
      domain: await domain(),
      types: { Permit: tokenAuthorizationTypes.Permit },
      primaryType: 'Permit',
      message,
    });
    await c.mined(usdcAs(stranger.address).permit([payer.address, payee.address, 500n, deadline, signature]));
    expect(
      await c.publicClient.readContract({
        address: token,
        abi: mockUsdcAbi,
        functionName: 'allowance',
        args: [payer.address, payee.address],
      }),
    ).toBe(500n);
    expect(await c.publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'nonces', args: [payer.address] })).toBe(1n);
    await expectRevert(() => usdcAs(stranger.address).permit([payer.address, payee.address, 500n, deadline, signature]), 'Error', [
      'EIP2612: invalid signature',
    ]);
  });

  it('refuses an expired permit', async () => {
    const deadline = (await c.now()) - 1n;
    const message = { owner: payer.address, spender: payee.address, value: 500n, nonce: 0n, deadline };
    const signature = await payer.signTypedData({
      domain: await domain(),
      types: { Permit: tokenAuthorizationTypes.Permit },
      primaryType: 'Permit',
      message,
    });
    await expectRevert(() => usdcAs(stranger.address).permit([payer.address, payee.address, 500n, deadline, signature]), 'Error', [
      'FiatTokenV2: permit is expired',
    ]);
  });
});

describe('EIP-3009', () => {
  it('transferWithAuthorization: anyone submits it once, in its window', async () => {
    const now = await c.now();
    const message = {
      from: payer.address,
      to: payee.address,
      value: 700n,
      validAfter: now - 1n,
      validBefore: now + HOUR,
      nonce: randomNonce(),
    };
    const signature = await signAuthorization(payer, 'TransferWithAuthorization', message);
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature] as const;
    const receipt = await c.mined(usdcAs(stranger.address).transferWithAuthorization(args));
    expect(parseEventLogs({ abi: mockUsdcAbi, logs: receipt.logs, eventName: 'AuthorizationUsed' })[0]!.args).toEqual({
      authorizer: payer.address,
      nonce: message.nonce,
    });
    expect(await balanceOf(payee.address)).toBe(700n);
    expect(await authorizationState(payer.address, message.nonce)).toBe(true);
    await expectRevert(() => usdcAs(stranger.address).transferWithAuthorization(args), 'Error', [
      'FiatTokenV2: authorization is used or canceled',
    ]);
  });

  it('the v,r,s forms take the same signature split', async () => {
    const now = await c.now();
    const message = { from: payer.address, to: payee.address, value: 5n, validAfter: 0n, validBefore: now + HOUR, nonce: randomNonce() };
    const signature = await signAuthorization(payer, 'TransferWithAuthorization', message);
    const { r, s, v } = parseSignature(signature);
    await c.mined(
      usdcAs(stranger.address).transferWithAuthorization([
        message.from,
        message.to,
        5n,
        0n,
        message.validBefore,
        message.nonce,
        Number(v),
        r,
        s,
      ]),
    );
    expect(await balanceOf(payee.address)).toBe(5n);
  });

  it('refuses an authorization before validAfter and from validBefore on', async () => {
    const now = await c.now();
    const early = {
      from: payer.address,
      to: payee.address,
      value: 1n,
      validAfter: now + HOUR,
      validBefore: now + 2n * HOUR,
      nonce: randomNonce(),
    };
    const sig = await signAuthorization(payer, 'TransferWithAuthorization', early);
    await expectRevert(
      () =>
        usdcAs(stranger.address).transferWithAuthorization([
          early.from,
          early.to,
          1n,
          early.validAfter,
          early.validBefore,
          early.nonce,
          sig,
        ]),
      'Error',
      ['FiatTokenV2: authorization is not yet valid'],
    );
    const late = { ...early, validAfter: 0n, validBefore: now, nonce: randomNonce() };
    const lateSig = await signAuthorization(payer, 'TransferWithAuthorization', late);
    await expectRevert(
      () => usdcAs(stranger.address).transferWithAuthorization([late.from, late.to, 1n, 0n, late.validBefore, late.nonce, lateSig]),
      'Error',
      ['FiatTokenV2: authorization is expired'],
    );
  });

  it('receiveWithAuthorization: only the payee may submit it, and a changed value or a wrong signer fails', async () => {
    const now = await c.now();
    const message = { from: payer.address, to: payee.address, value: 900n, validAfter: 0n, validBefore: now + HOUR, nonce: randomNonce() };
    const signature = await signAuthorization(payer, 'ReceiveWithAuthorization', message);
    const args = [message.from, message.to, message.value, 0n, message.validBefore, message.nonce, signature] as const;
    await expectRevert(() => usdcAs(stranger.address).receiveWithAuthorization(args), 'Error', ['FiatTokenV2: caller must be the payee']);
    // A ReceiveWithAuthorization is no TransferWithAuthorization: the type hash differs.
    await expectRevert(() => usdcAs(stranger.address).transferWithAuthorization(args), 'Error', ['FiatTokenV2: invalid signature']);
    await expectRevert(
      () =>
        usdcAs(payee.address).receiveWithAuthorization([message.from, message.to, 901n, 0n, message.validBefore, message.nonce, signature]),
      'Error',
      ['FiatTokenV2: invalid signature'],
    );
    const forged = await signAuthorization(stranger, 'ReceiveWithAuthorization', message);
    await expectRevert(
      () =>
        usdcAs(payee.address).receiveWithAuthorization([message.from, message.to, 900n, 0n, message.validBefore, message.nonce, forged]),
      'Error',
      ['FiatTokenV2: invalid signature'],
    );
    await c.mined(usdcAs(payee.address).receiveWithAuthorization(args));
    expect(await balanceOf(payee.address)).toBe(900n);
  });

  it('cancelAuthorization: a canceled nonce can no longer be used', async () => {
    const now = await c.now();
    const message = { from: payer.address, to: payee.address, value: 1n, validAfter: 0n, validBefore: now + HOUR, nonce: randomNonce() };
    const signature = await signAuthorization(payer, 'TransferWithAuthorization', message);
    const cancel = await payer.signTypedData({
      domain: await domain(),
      types: { CancelAuthorization: tokenAuthorizationTypes.CancelAuthorization },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: message.nonce },
    });
    const receipt = await c.mined(usdcAs(stranger.address).cancelAuthorization([payer.address, message.nonce, cancel]));
    expect(parseEventLogs({ abi: mockUsdcAbi, logs: receipt.logs, eventName: 'AuthorizationCanceled' })).toHaveLength(1);
    expect(await authorizationState(payer.address, message.nonce)).toBe(true);
    await expectRevert(
      () =>
        usdcAs(stranger.address).transferWithAuthorization([
          message.from,
          message.to,
          1n,
          0n,
          message.validBefore,
          message.nonce,
          signature,
        ]),
      'Error',
      ['FiatTokenV2: authorization is used or canceled'],
    );
  });

  it('accepts an ERC-1271 smart wallet signature through the bytes form', async () => {
    const wallet = compileFixtures().get('SmartWallet')!;
    const abi = wallet.abi as Abi;
    // The wallet is owned by `payer`; it holds the tokens.
    const hash = await c.wallet(payer.address).deployContract({ abi, bytecode: wallet.bytecode, args: [payer.address] });
    const smartWallet = (await c.mined(hash)).contractAddress!;
    await c.mined(usdcAs(payer.address).mint([smartWallet, 1_000n]));
    const now = await c.now();
    const message = { from: smartWallet, to: payee.address, value: 400n, validAfter: 0n, validBefore: now + HOUR, nonce: randomNonce() };
    const byStranger = await signAuthorization(stranger, 'ReceiveWithAuthorization', message);
    const args = (signature: Hex) => [message.from, message.to, 400n, 0n, message.validBefore, message.nonce, signature] as const;
    await expectRevert(() => usdcAs(payee.address).receiveWithAuthorization(args(byStranger)), 'Error', ['FiatTokenV2: invalid signature']);
    await c.mined(
      usdcAs(payee.address).receiveWithAuthorization(args(await signAuthorization(payer, 'ReceiveWithAuthorization', message))),
    );
    expect(await balanceOf(payee.address)).toBe(400n);
    expect(await balanceOf(smartWallet)).toBe(600n);
  });
});
