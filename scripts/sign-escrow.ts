// What the sender's wallet does for a platform transaction: reads the transaction Payments answered
// (POST or GET /api/v2/transactions, JSON on stdin or in the file named), then with the sender's key
// approves the escrow for the amount and calls createEscrow with the answer's `escrow` object. On the
// local chain it first mints the MockUSDC the sender lacks (anyone may mint it; a real token refuses).
//
//   node scripts/sign-escrow.ts < tx.json
//   HOLDFAST_SENDER_KEY=0x... HOLDFAST_RPC_URL=http://127.0.0.1:8545 node scripts/sign-escrow.ts tx.json
//
// Without HOLDFAST_SENDER_KEY it signs as anvil's dev account #4 (0x15d3…6A65, from the public
// mnemonic), which nothing in the stack signs with. Local chains only: never put a real key here.
import { readFileSync } from 'node:fs';
import { evmChain, holdfastEscrowAbi, mockUsdcAbi } from '@holdfast/escrow';
import { type Address, createPublicClient, createWalletClient, type Hex, http } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';

interface EscrowTerms {
  contractAddress: Address | null;
  tokenAddress: Address | null;
  attester: Address | null;
  onchainId: Hex;
  amountBaseUnits: string;
  holdDeadline: number | null;
}

function fail(message: string): never {
  process.stderr.write(`sign-escrow: ${message}\n`);
  process.exit(1);
}

const text = process.argv[2] ? readFileSync(process.argv[2], 'utf8') : readFileSync(0, 'utf8');
let answer: { data?: unknown; id?: string; fromAddress?: string; toAddress?: string; escrow?: EscrowTerms; error?: unknown };
try {
  answer = JSON.parse(text);
} catch {
  fail('the input is not JSON: pipe in the answer of POST /api/v2/transactions');
}
// v1 answers may wrap the transaction in `data`.
const tx = (answer.data ?? answer) as typeof answer;
const terms = tx.escrow;
if (!terms) fail(`the input has no \`escrow\` object (a raw transaction, or an error answer?): ${text.slice(0, 300)}`);
const { contractAddress, tokenAddress, attester, onchainId, holdDeadline } = terms;
if (!contractAddress || !tokenAddress || !attester || holdDeadline === null) {
  fail(`this deployment has no escrow, token or attester for the transaction's network: ${JSON.stringify(terms)}`);
}

const account = process.env.HOLDFAST_SENDER_KEY
  ? privateKeyToAccount(process.env.HOLDFAST_SENDER_KEY as Hex)
  : mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 4 });
if (tx.fromAddress?.toLowerCase() !== account.address.toLowerCase()) {
  fail(
    `the transaction's fromAddress is ${tx.fromAddress}, but this key is ${account.address}: payments accepts the escrow only from the sender`,
  );
}

const rpcUrl = process.env.HOLDFAST_RPC_URL ?? 'http://127.0.0.1:8545';
const probe = createPublicClient({ transport: http(rpcUrl) });
const chain = evmChain({
  id: await probe.getChainId().catch(() => fail(`no chain answers at ${rpcUrl} (set HOLDFAST_RPC_URL)`)),
  name: 'local',
  rpcUrl,
});
const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 100 });
const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
const mined = async (what: string, hash: Promise<Hex>) => {
  const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
  if (receipt.status !== 'success') fail(`${what} ${receipt.transactionHash} reverted`);
  process.stdout.write(`${what.padEnd(12)} ${receipt.transactionHash} (block ${receipt.blockNumber})\n`);
  return receipt;
};

const token = tokenAddress;
const amount = BigInt(terms.amountBaseUnits);
const balance = await publicClient.readContract({ address: token, abi: mockUsdcAbi, functionName: 'balanceOf', args: [account.address] });
if (balance < amount) {
  await mined(
    'mint',
    wallet.writeContract({ address: token, abi: mockUsdcAbi, functionName: 'mint', args: [account.address, amount - balance] }),
  );
}
await mined(
  'approve',
  wallet.writeContract({ address: token, abi: mockUsdcAbi, functionName: 'approve', args: [contractAddress, amount] }),
);
await mined(
  'createEscrow',
  wallet.writeContract({
    address: contractAddress,
    abi: holdfastEscrowAbi,
    functionName: 'createEscrow',
    args: [onchainId, tx.toAddress as Address, token, amount, attester, BigInt(holdDeadline)],
  }),
);
