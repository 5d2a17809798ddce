import { randomUUID } from 'node:crypto';
import { createIndexerService, indexerConfigFrom } from '@holdfast/chain-indexer';
import { type ChainEvent, STREAMS } from '@holdfast/contracts';
import { holdfastEscrowAbi, mockUsdcAbi, uuidToOnchainId } from '@holdfast/escrow';
import { startForTest } from '@holdfast/http-kit';
import { connectBus, prefixedName } from '@holdfast/messaging';
import { ANVIL_ACCOUNTS, fileFixture, startAnvil, testLogger } from '@holdfast/test-fixtures';
import { type Address, getAddress, maxUint256, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilClients } from '../support/chain.js';
import { buildWorld, startHarness } from '../support/harness.js';

// End to end on anvil: a dedicated escrow deployed through the Workspace API is announced to the
// chain-indexer, which follows it from its deployment block without a restart; funds locked in it
// by a client-side wallet come out as CHAIN events. An indexer that is down when a deployment
// happens hears of it later (the announcement is retried until acknowledged); a deprecated escrow
// is still followed.
const anvil = fileFixture(() => startAnvil());
const h = fileFixture(() => startHarness({ CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}` }));
const world = fileFixture(() => buildWorld(h));
const bus = fileFixture(() =>
  connectBus({ url: h.env.NATS_URL!, prefix: h.env.NATS_SUBJECT_PREFIX!, name: 'test-reader', logger: testLogger('reader') }),
);
let indexer: { url: string; stop: () => Promise<void> } | undefined;
let usdc: Address;
const sender = privateKeyToAccount(ANVIL_ACCOUNTS[3].privateKey);
const receiver = privateKeyToAccount(generatePrivateKey()).address;
const attester = privateKeyToAccount(generatePrivateKey()).address;

async function startIndexer() {
  const config = indexerConfigFrom({
    DATABASE_URL: h.env.DATABASE_URL,
    NATS_URL: h.env.NATS_URL,
    NATS_SUBJECT_PREFIX: h.env.NATS_SUBJECT_PREFIX,
    CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}`,
    // No shared escrow: the network is followed only for the dedicated ones.
    INDEXER_POLL_INTERVAL: '50ms',
  });
  indexer = await startForTest(await createIndexerService(config, testLogger('chain-indexer')));
}

/** Every escrow.created on the CHAIN stream so far. */
async function escrowsCreated(): Promise<ChainEvent[]> {
  const stream = prefixedName(bus, STREAMS.CHAIN.name);
  const info = await bus.jsm.streams.info(stream);
  const events: ChainEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const message = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    const event = message?.json<ChainEvent>();
    if (event?.kind === 'escrow.created' && !event.removed) events.push(event);
  }
  return events;
}

/** Waits (bounded, not a timing assertion) until the CHAIN stream has the escrow of this transaction id. */
async function chainEventOf(transactionId: string, timeoutMs = 30_000): Promise<ChainEvent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await escrowsCreated()).find((e) => e.transactionId === transactionId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no escrow.created for ${transactionId} on the CHAIN stream`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Locks 25 MockUSDC in an escrow contract, as a customer's wallet does. */
async function lockFunds(escrow: Address): Promise<{ id: string; transactionHash: string }> {
  // Account 3 of anvil's dev accounts signs, as the customer's wallet would.
  const chain = anvilClients(anvil.rpcUrl, 3);
  await chain.mined(
    chain.walletClient.writeContract({ address: usdc, abi: mockUsdcAbi, functionName: 'approve', args: [escrow, maxUint256] }),
  );
  const id = randomUUID();
  const receipt = await chain.mined(
    chain.walletClient.writeContract({
      address: escrow,
      abi: holdfastEscrowAbi,
      functionName: 'createEscrow',
      args: [uuidToOnchainId(id), receiver, usdc, parseUnits('25', 6), attester, 0n],
    }),
  );
  return { id, transactionHash: receipt.transactionHash };
}

beforeAll(async () => {
  const chain = anvilClients(anvil.rpcUrl, 1);
  usdc = (await chain.deployMockUsdc()).address;
  await chain.mintUsdc(usdc, sender.address, '1000');
  await startIndexer();
});

afterAll(() => indexer?.stop());

describe('a dedicated escrow deployed through the Workspace API', () => {
  let escrow: Address;
  let deploymentId: string;

  it('is followed by the chain-indexer at once: funds locked in it come out as a CHAIN event', async () => {
    const deployed = await h.call('POST', `/api/v1/workspaces/${world.w1.id}/contracts/base-sepolia`, { token: world.adminW1.token });
    expect(deployed.status, deployed.text).toBe(201);
    escrow = getAddress(deployed.body.data.contractAddress);
    deploymentId = deployed.body.data.deploymentId;
    // Acknowledged by the indexer before the answer (the announcement follows the commit).
    const [row] = await h.sql`select indexer_registered_at from workspace.contract_deployments where id = ${deploymentId}`;
    expect(row?.indexer_registered_at).toBeInstanceOf(Date);
    const [registered] = await h.sql`select * from indexer.registered_contracts where address = ${escrow}`;
    expect(registered).toMatchObject({
      network: 'base-sepolia',
      deployment_block: String(deployed.body.data.blockNumber),
      workspace_id: world.w1.id,
      deployment_id: deploymentId,
    });

    const locked = await lockFunds(escrow);
    const event = await chainEventOf(locked.id);
    expect(event).toMatchObject({
      kind: 'escrow.created',
      network: 'base-sepolia',
      chainId: 84532,
      contractAddress: escrow,
      transactionHash: locked.transactionHash,
      transactionId: locked.id,
      data: { sender: sender.address, amount: '25000000', token: getAddress(usdc) },
    });
  });

  it('is still followed once deprecated: the escrows it holds keep settling on chain', async () => {
    const deprecated = await h.call('POST', `/api/v1/workspaces/${world.w1.id}/contracts/deployments/${deploymentId}/deprecate`, {
      token: world.adminW1.token,
    });
    expect(deprecated.body.data.status).toBe('deprecated');
    const locked = await lockFunds(escrow);
    expect((await chainEventOf(locked.id)).contractAddress).toBe(escrow);
  });
});

describe('a deployment while the chain-indexer is down', () => {
  it('is announced again until the indexer acknowledges it, and its earlier escrows are published', async () => {
    await indexer?.stop();
    indexer = undefined;
    const deployed = await h.call('POST', `/api/v1/workspaces/${world.w2.id}/contracts/base-sepolia`, { token: world.adminW2.token });
    expect(deployed.status, deployed.text).toBe(201);
    const escrow = getAddress(deployed.body.data.contractAddress);
    const [pending] =
      await h.sql`select indexer_registered_at from workspace.contract_deployments where id = ${deployed.body.data.deploymentId}`;
    expect(pending?.indexer_registered_at).toBeNull();
    const lockedWhileDown = await lockFunds(escrow);

    await startIndexer();
    // The workspace-service retry loop announces it (every 5 s); the indexer reads it from its deployment block.
    const event = await chainEventOf(lockedWhileDown.id);
    expect(event).toMatchObject({ contractAddress: escrow, transactionHash: lockedWhileDown.transactionHash });
    const [acknowledged] =
      await h.sql`select indexer_registered_at from workspace.contract_deployments where id = ${deployed.body.data.deploymentId}`;
    expect(acknowledged?.indexer_registered_at).toBeInstanceOf(Date);
  });
});
