import { INDEXER_COMMANDS, uuidv7 } from '@holdfast/contracts';
import {
  deployEscrow,
  EscrowStatus,
  holdfastEscrowAbi,
  holdfastEscrowDeployedBytecode,
  localDeployerAccount,
  mockUsdcAbi,
  uuidToOnchainId,
} from '@holdfast/escrow';
import { sendCommand } from '@holdfast/messaging';
import { fileFixture, initCodeReturning, type RunningProcesses, startServiceProcesses } from '@holdfast/test-fixtures';
import { type Address, createWalletClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AMOUNT,
  ATTESTER,
  eventsOf,
  insertTransaction,
  NETWORK,
  platformWithCredentials,
  RECEIVER,
  SENDER,
  startChainPaymentsEnv,
} from '../support/chain.js';
import { bearer, call } from '../support/harness.js';

// Issue 28 item 1, reproduced: a merchant deploys HoldfastEscrow's runtime code behind an init code
// of its own (no constructor: expiryPeriod = freezePeriod = 0) and has the payer lock the funds
// there. Before, payments took its EscrowCreated as an escrow (code compared with every zero byte a
// wildcard, periods never read): 200 `escrowed`, while a stranger could `claimExpired` at once and
// pay the receiver. Only ESCROW_CONTRACTS and contracts the chain-indexer follows for a workspace
// (deployed and registered by workspace-service) are escrows, with their code and periods checked.
// The chain-indexer here is the real process, on the test's database and NATS prefix.

const e = fileFixture(() => startChainPaymentsEnv());
let indexer: RunningProcesses;
let p: Awaited<ReturnType<typeof platformWithCredentials>>;

beforeAll(async () => {
  p = await platformWithCredentials(e, 'look-alike escrow');
  indexer = await startServiceProcesses({
    services: ['chain-indexer'],
    join: { db: e.db, nats: e.nats },
    env: {
      CHAIN_RPC_URLS: e.world.env.CHAIN_RPC_URLS!,
      ESCROW_CONTRACTS: e.world.env.ESCROW_CONTRACTS!,
      INDEXER_POLL_INTERVAL: '100ms',
    },
  });
}, 180_000);
afterAll(async () => {
  await indexer?.stop();
});

const statusOf = async (id: string) => ((await e.sql`select status from transactions where id = ${id}`)[0] as { status: string }).status;

/** A transaction of the platform whose sender locks its funds in `escrow` with the exact terms and hold. */
async function lockedIn(escrow: Address) {
  const holdDeadline = (await e.world.now()) + 7n * 86_400n;
  const id = await insertTransaction(e.sql, {
    platformId: p.platformId,
    from: SENDER,
    to: RECEIVER,
    holdDeadline: new Date(Number(holdDeadline) * 1000).toISOString(),
  });
  await e.world.mint(SENDER, AMOUNT);
  await e.world.mined(
    e.world.sender.writeContract({ address: e.world.usdc, abi: mockUsdcAbi, functionName: 'approve', args: [escrow, AMOUNT] }),
  );
  const receipt = await e.world.mined(
    e.world.sender.writeContract({
      address: escrow,
      abi: holdfastEscrowAbi,
      functionName: 'createEscrow',
      args: [uuidToOnchainId(id), RECEIVER, e.world.usdc, AMOUNT, ATTESTER, holdDeadline],
    }),
  );
  expect(receipt.status).toBe('success');
  return { id, receipt };
}

const submit = (id: string, transactionHash: string) =>
  call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, { headers: bearer(p.token), body: { transactionHash } });

describe('only Holdfast escrows are escrows', () => {
  it("refuses an escrow in HoldfastEscrow's runtime code deployed without its constructor (periods 0): nothing moves", async () => {
    const merchant = createWalletClient({
      account: localDeployerAccount(),
      chain: e.world.sender.chain,
      transport: http(e.world.anvil.rpcUrl),
    });
    const deployed = await e.world.mined(merchant.sendTransaction({ data: initCodeReturning(holdfastEscrowDeployedBytecode) }));
    const lookAlike = deployed.contractAddress!;
    const { id, receipt } = await lockedIn(lookAlike);

    const res = await submit(id, receipt.transactionHash);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'CHAIN_RECEIPT_MISMATCH', details: { reason: 'no_escrow_for_transaction' } });
    expect(await statusOf(id)).toBe('pending');
    expect(await eventsOf(e.sql, id)).toEqual([]);

    // What the refusal protects: no expiry period, so once the hold ends anyone can pay the receiver
    // out of the look-alike, with no attester, no dispute and no freeze in between.
    const period = (fn: 'expiryPeriod' | 'freezePeriod') =>
      e.world.publicClient.readContract({ address: lookAlike, abi: holdfastEscrowAbi, functionName: fn });
    expect([await period('expiryPeriod'), await period('freezePeriod')]).toEqual([0n, 0n]);
  });

  it('takes a genuine HoldfastEscrow only once workspace-service has registered it with the chain-indexer', async () => {
    const dedicated = await deployEscrow({
      publicClient: e.world.publicClient,
      walletClient: createWalletClient({
        account: localDeployerAccount(),
        chain: e.world.sender.chain,
        transport: http(e.world.anvil.rpcUrl),
      }),
    });
    const { id, receipt } = await lockedIn(dedicated.address);
    const refused = await submit(id, receipt.transactionHash);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error.details.reason).toBe('no_escrow_for_transaction');
    expect(await statusOf(id)).toBe('pending');

    // As workspace-service announces a workspace's dedicated escrow after deploying it.
    await sendCommand(e.nats.bus, INDEXER_COMMANDS.followContract, {
      network: NETWORK,
      address: dedicated.address,
      deploymentBlock: Number(dedicated.blockNumber),
      workspaceId: uuidv7(),
      deploymentId: uuidv7(),
    });
    const accepted = await submit(id, receipt.transactionHash);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.transaction).toMatchObject({ status: 'escrowed', escrowAddress: dedicated.address });
    expect((await eventsOf(e.sql, id)).map((x) => x.type)).toEqual(['transaction.escrowed']);
  });

  it("refuses an escrow whose hold deadline is not the transaction's (400 terms_mismatch holdDeadline), in the shared escrow too", async () => {
    const id = await insertTransaction(e.sql, {
      platformId: p.platformId,
      from: SENDER,
      to: RECEIVER,
      holdDeadline: new Date(Number((await e.world.now()) + 7n * 86_400n) * 1000).toISOString(),
    });
    // The payer locks with no hold: the receiver could be paid at once instead of after the platform's hold.
    const receipt = await e.world.createEscrow(id, AMOUNT, { holdDeadline: 0n });
    const res = await submit(id, receipt.transactionHash);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'CHAIN_RECEIPT_MISMATCH',
      details: { reason: 'terms_mismatch', fields: ['holdDeadline'] },
    });
    expect(await statusOf(id)).toBe('pending');
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Held);
  });

  it('answers 503 UPSTREAM_UNAVAILABLE, changing nothing, while the chain-indexer does not answer', async () => {
    const dedicated = await deployEscrow({
      publicClient: e.world.publicClient,
      walletClient: createWalletClient({
        account: localDeployerAccount(),
        chain: e.world.sender.chain,
        transport: http(e.world.anvil.rpcUrl),
      }),
    });
    const { id, receipt } = await lockedIn(dedicated.address);
    await indexer.stop();
    const res = await submit(id, receipt.transactionHash);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(await statusOf(id)).toBe('pending');
  });
});
