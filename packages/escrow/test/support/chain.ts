import { ANVIL_MNEMONIC, type Anvil } from '@holdfast/test-fixtures';
import {
  type Account,
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hash,
  type Hex,
  type HttpTransport,
  http,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterEach, beforeEach, expect } from 'vitest';
import { evmChain } from '../../src/index.js';

export interface Connection {
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
  testClient: TestClient<'anvil', HttpTransport, Chain>;
  /** anvil's ten funded accounts. */
  accounts: Address[];
  /** A wallet that signs locally for one of `accounts`. */
  wallet(account: Address): WalletClient<HttpTransport, Chain, Account>;
  mined(hash: Promise<Hash> | Hash): Promise<TransactionReceipt>;
  now(): Promise<bigint>;
  travel(seconds: bigint): Promise<void>;
}

/** Clients for one anvil: a public client without caches (the chain moves under the tests), a test client, wallets per account. */
export async function connect(anvil: Anvil): Promise<Connection> {
  const { rpcUrl } = anvil;
  const chain = evmChain({ id: anvil.chainId, name: 'anvil as base-sepolia', rpcUrl });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 });
  const testClient = createTestClient({ chain, transport, mode: 'anvil' });
  // Local accounts, as a service signs: viem then estimates gas first, so a reverting call fails with
  // its decoded custom error instead of being mined as a failed transaction.
  const localAccounts = Array.from({ length: 10 }, (_, addressIndex) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex }));
  const wallet = (address: Address) => {
    const account = localAccounts.find((a) => a.address === address);
    if (!account) throw new Error(`not an anvil account: ${address}`);
    return createWalletClient({ account, chain, transport, cacheTime: 0, pollingInterval: 50 });
  };

  /** Waits for a transaction and asserts it succeeded. */
  async function mined(hash: Promise<Hash> | Hash): Promise<TransactionReceipt> {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    expect(receipt.status).toBe('success');
    return receipt;
  }

  /** The chain's time as the next transaction sees it: mines a block first, so a time offset left by a reverted snapshot counts. */
  async function now(): Promise<bigint> {
    await testClient.mine({ blocks: 1 });
    return (await publicClient.getBlock()).timestamp;
  }

  /** Moves the chain's clock forward and mines a block at the new time. */
  async function travel(seconds: bigint): Promise<void> {
    await testClient.increaseTime({ seconds: Number(seconds) });
    await testClient.mine({ blocks: 1 });
  }

  return { chain, publicClient, testClient, accounts: localAccounts.map((a) => a.address), wallet, mined, now, travel };
}

/**
 * Every test of the file starts from the same chain state: a snapshot before each, reverted after.
 * `connection` is read when a test starts (the file's beforeAll sets it).
 */
export function revertEachTest(connection: () => Connection): void {
  let snapshot: Hex | undefined;
  beforeEach(async () => {
    snapshot = await connection().testClient.snapshot();
  });
  afterEach(async () => {
    if (snapshot) await connection().testClient.revert({ id: snapshot });
  });
}

/** Every custom error name an `expectRevert` saw in this test file (see the coverage test). */
export const revertsSeen = new Set<string>();

/** Asserts that `action` fails with the contract's custom error `errorName` (decoded by viem from the ABI), with `args` when given. */
export async function expectRevert(action: () => Promise<unknown>, errorName: string, args?: readonly unknown[]): Promise<void> {
  let failure: unknown;
  try {
    await action();
  } catch (error) {
    failure = error;
  }
  if (failure === undefined) throw new Error(`expected a revert with ${errorName}, but the call succeeded`);
  const reverted = failure instanceof BaseError ? failure.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  if (!(reverted instanceof ContractFunctionRevertedError)) throw failure;
  expect(reverted.data?.errorName).toBe(errorName);
  // viem leaves `args` undefined for an error without parameters.
  if (args) expect(reverted.data?.args ?? []).toEqual(args);
  revertsSeen.add(errorName);
}
