import { holdfastEscrowAbi, mockUsdcAbi } from '@holdfast/contracts/escrow';
import { type Address, createPublicClient, createWalletClient, defineChain, type Hex, http, type LocalAccount, parseUnits } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';

/** anvil's public development mnemonic: its accounts hold test ETH on every local chain and nothing anywhere else. */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * The wallet that plays the sender: `--sender-key` / HOLDFAST_SENDER_KEY, else anvil's dev account
 * #4 (as scripts/sign-escrow.ts), which nothing else in the local stack signs with.
 */
export function senderAccount(key: string | undefined): LocalAccount {
  return key ? privateKeyToAccount(key as Hex) : mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 4 });
}

export interface EscrowTerms {
  contractAddress: string | null;
  tokenAddress: string | null;
  attester: string | null;
  onchainId: string;
  amountBaseUnits: string;
  holdDeadline: number | null;
}

/** Whose wallet signs, on which chain; `onStep` hears each mined step. */
interface Signer {
  rpcUrl: string;
  account: LocalAccount;
  onStep?: (step: string, hash: Hex) => void;
}

/** The sender's wallet on the chain at `rpcUrl`, and `mined`: waits for a step's receipt, throwing when it reverted. */
async function walletOn(options: Signer) {
  const probe = createPublicClient({ transport: http(options.rpcUrl) });
  const chain = defineChain({
    id: await probe.getChainId(),
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(options.rpcUrl), pollingInterval: 100 });
  const wallet = createWalletClient({ account: options.account, chain, transport: http(options.rpcUrl) });
  const mined = async (step: string, hash: Promise<Hex>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== 'success') throw new Error(`${step} ${receipt.transactionHash} reverted`);
    options.onStep?.(step, receipt.transactionHash);
    return receipt.transactionHash;
  };
  return { publicClient, wallet, mined };
}

/**
 * What the sender's wallet does for a platform transaction: approve the escrow for the amount and
 * call `createEscrow` with the terms Payments answered; on a local chain it first mints the MockUSDC
 * the sender lacks (anyone may mint the mock; a real token refuses). Resolves with the createEscrow hash.
 */
export async function lockEscrow(options: Signer & { toAddress: string; terms: EscrowTerms }): Promise<Hex> {
  const { contractAddress, tokenAddress, attester, onchainId, holdDeadline } = options.terms;
  if (!contractAddress || !tokenAddress || !attester || holdDeadline === null) {
    throw new Error(`this deployment has no escrow, token or attester for the network: ${JSON.stringify(options.terms)}`);
  }
  const { publicClient, wallet, mined } = await walletOn(options);
  const token = tokenAddress as Address;
  const amount = BigInt(options.terms.amountBaseUnits);
  const balance = await publicClient.readContract({
    address: token,
    abi: mockUsdcAbi,
    functionName: 'balanceOf',
    args: [options.account.address],
  });
  if (balance < amount) {
    await mined(
      'mint',
      wallet.writeContract({ address: token, abi: mockUsdcAbi, functionName: 'mint', args: [options.account.address, amount - balance] }),
    );
  }
  await mined(
    'approve',
    wallet.writeContract({ address: token, abi: mockUsdcAbi, functionName: 'approve', args: [contractAddress as Address, amount] }),
  );
  return mined(
    'createEscrow',
    wallet.writeContract({
      address: contractAddress as Address,
      abi: holdfastEscrowAbi,
      functionName: 'createEscrow',
      args: [onchainId as Hex, options.toAddress as Address, token, amount, attester as Address, BigInt(holdDeadline)],
    }),
  );
}

/** The sender takes its escrow back during the hold period (`rescind(id)`, only the depositor may); the rescind hash. */
export async function rescindEscrow(options: Signer & { contractAddress: string; onchainId: string }): Promise<Hex> {
  const { wallet, mined } = await walletOn(options);
  return mined(
    'rescind',
    wallet.writeContract({
      address: options.contractAddress as Address,
      abi: holdfastEscrowAbi,
      functionName: 'rescind',
      args: [options.onchainId as Hex],
    }),
  );
}

/**
 * The transaction's own ERC-20 transfer (its receiver and amount) from the sender, sent with too
 * little gas (a fixed limit, as a wallet that skips the estimate would), so that it is mined and
 * reverts. Payments fails a raw transaction only for a reverted call that is its own transfer
 * (docs/settlement.md). The mined hash.
 */
export async function revertedTransfer(options: Signer & { tokenAddress: string; toAddress: string; amount: string }): Promise<Hex> {
  const { publicClient, wallet } = await walletOn(options);
  const token = options.tokenAddress as Address;
  const decimals = await publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'decimals' });
  const hash = await wallet.writeContract({
    address: token,
    abi: mockUsdcAbi,
    functionName: 'transfer',
    args: [options.toAddress as Address, parseUnits(options.amount, Number(decimals))],
    gas: 23_000n,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'reverted') throw new Error(`transfer ${hash} did not revert`);
  return hash;
}
