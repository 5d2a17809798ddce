// The escrow history the backfill benchmarks read (chain-indexer.ts, ponder.ts): on an anvil, a
// mock USDC and the escrow contract deployed, then `singles` single escrows (`perBlock` a block) and
// `batches` batches of `legs` legs (one a block): singles + batches × (legs + 1) escrow events.
import { randomUUID } from 'node:crypto';
import { deployEscrow, deployMockUsdc, evmChain, holdfastEscrowAbi, mockUsdcAbi, uuidToOnchainId } from '@holdfast/escrow';
import { createPublicClient, createWalletClient, encodeFunctionData, type Hex, http, maxUint256 } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { LOCAL_CHAIN_ID } from '../lib/stack/chain.ts';

const say = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export interface HistoryOptions {
  singles: number;
  perBlock: number;
  batches: number;
  legs: number;
}

/** The escrow events a history of these options holds: one per single, one per leg and one per batch. */
export const historyEvents = (o: HistoryOptions) => o.singles + o.batches * (o.legs + 1);

/**
 * Mines the history on the anvil at `rpcUrl`; answers the escrow contract (address, deployment
 * block), the last block, and what the head-lag loop sends more with (`send`, `createData`, `wait`).
 */
export interface EscrowHistory {
  escrow: { address: Hex; blockNumber: bigint };
  token: Hex;
  blocks: bigint;
  /** Sends a signed transaction to the escrow contract (the sender's next nonce). */
  send: (data: Hex, gas: bigint) => Promise<Hex>;
  /** A `createEscrow` of transaction `id`. */
  createData: (id: string) => Hex;
  /** Waits for a transaction's receipt; throws when it reverted. */
  wait: (hash: Hex) => Promise<{ blockNumber: bigint }>;
}

export async function mineEscrowHistory(rpcUrl: string, o: HistoryOptions): Promise<EscrowHistory> {
  const viemChain = evmChain({ id: LOCAL_CHAIN_ID, name: 'anvil', rpcUrl });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain: viemChain, transport, cacheTime: 0, pollingInterval: 20 });
  const account = (i: number) => mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: i });
  const sender = account(1);
  const wallet = createWalletClient({ account: sender, chain: viemChain, transport, pollingInterval: 20 });
  const deployer = createWalletClient({ account: account(9), chain: viemChain, transport });
  const token = (await deployMockUsdc({ publicClient, walletClient: deployer })).address;
  const escrow = await deployEscrow({ publicClient, walletClient: deployer });
  const wait = async (hash: Hex) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${hash} reverted`);
    return receipt;
  };
  await wait(await wallet.writeContract({ address: token, abi: mockUsdcAbi, functionName: 'mint', args: [sender.address, 10n ** 15n] }));
  await wait(await wallet.writeContract({ address: token, abi: mockUsdcAbi, functionName: 'approve', args: [escrow.address, maxUint256] }));

  // Signed locally with explicit nonces. For the history, automining is off: o.perBlock transactions are
  // sent at once and then mined into one block, which is far quicker than a block per transaction.
  let nonce = await publicClient.getTransactionCount({ address: sender.address });
  const gasPrice = await publicClient.getGasPrice();
  const send = async (data: Hex, gas: bigint) => {
    const signed = await sender.signTransaction({
      to: escrow.address,
      data,
      nonce: nonce++,
      gas,
      gasPrice,
      chainId: LOCAL_CHAIN_ID,
      type: 'legacy',
    });
    return publicClient.sendRawTransaction({ serializedTransaction: signed });
  };
  const rpc = (method: string, params: unknown[] = []) => publicClient.request({ method, params } as never);
  const createData = (id: string) =>
    encodeFunctionData({
      abi: holdfastEscrowAbi,
      functionName: 'createEscrow',
      args: [uuidToOnchainId(id), account(2).address, token, 1_000_000n, account(3).address, 0n],
    });
  const batchData = () => {
    const ids = Array.from({ length: o.legs }, () => uuidToOnchainId(randomUUID()));
    return encodeFunctionData({
      abi: holdfastEscrowAbi,
      functionName: 'createBatch',
      args: [ids, ids.map(() => account(2).address), ids.map(() => 1_000_000n), token, account(3).address, 0n],
    });
  };
  say(`mining ${o.singles} single escrows (${o.perBlock} a block) and ${o.batches} batches of ${o.legs} legs (one a block)…`);
  await rpc('evm_setAutomine', [false]);
  for (let i = 0; i < o.singles; i += o.perBlock) {
    const count = Math.min(o.perBlock, o.singles - i);
    // The block's transactions at once (their nonces are set before they are sent).
    await Promise.all(Array.from({ length: count }, () => send(createData(randomUUID()), 300_000n)));
    await rpc('evm_mine');
  }
  for (let b = 0; b < o.batches; b++) {
    await send(batchData(), 200_000n + BigInt(o.legs) * 120_000n);
    await rpc('evm_mine');
  }
  await rpc('evm_setAutomine', [true]);
  const escrowBalance = await publicClient.readContract({
    address: token,
    abi: mockUsdcAbi,
    functionName: 'balanceOf',
    args: [escrow.address],
  });
  if (escrowBalance !== BigInt(o.singles + o.batches * o.legs) * 1_000_000n)
    throw new Error(`a history transaction failed (escrow holds ${escrowBalance})`);
  const blocks = await publicClient.getBlockNumber();
  return { escrow: { address: escrow.address, blockNumber: escrow.blockNumber }, token, blocks, send, createData, wait };
}
