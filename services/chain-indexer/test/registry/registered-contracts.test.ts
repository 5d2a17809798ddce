import { randomUUID } from 'node:crypto';
import { AppError, INDEXER_COMMANDS } from '@holdfast/contracts';
import { deployEscrow, holdfastEscrowAbi, mockUsdcAbi, uuidToOnchainId } from '@holdfast/escrow';
import { sendCommand } from '@holdfast/messaging';
import { type Anvil, createTestBus, createTestDatabase, startAnvil, type TestBus, type TestDatabase } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { request } from 'undici';
import { type Address, getAddress, maxUint256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTESTER,
  chainStream,
  DEPLOYER,
  indexerTestEnv,
  RECEIVER,
  SENDER,
  startChain,
  startIndexer,
  type TestChain,
  usdc,
} from '../support/chain.js';

// Escrow contracts registered at run time (a workspace's dedicated escrow): followed from their
// deployment block without a restart, on a network already followed or a new one, and after a restart.
let db: TestDatabase;
let nats: TestBus;
let base: TestChain;
let sepoliaAnvil: Anvil;
let sepolia: TestChain;
let sql: postgres.Sql;
let service: { url: string; stop: () => Promise<void> };
let stream: ReturnType<typeof chainStream>;

function start() {
  // Only base-sepolia has a contract in the configuration.
  return startIndexer(
    indexerTestEnv(db, nats, base, { CHAIN_RPC_URLS: `base-sepolia=${base.anvil.rpcUrl},ethereum-sepolia=${sepoliaAnvil.rpcUrl}` }),
  );
}

/** A dedicated escrow deployed on a chain, with a sender funded and approving it. */
async function dedicatedEscrow(chain: TestChain) {
  const deployed = await deployEscrow({ publicClient: chain.publicClient, walletClient: chain.wallet(DEPLOYER!) });
  await chain.fund(SENDER!, usdc('1000'));
  await chain.mined(
    chain
      .wallet(SENDER!)
      .writeContract({ address: chain.token, abi: mockUsdcAbi, functionName: 'approve', args: [deployed.address, maxUint256] }),
  );
  const lock = async (amount = usdc('5')) => {
    const id = randomUUID();
    const receipt = await chain.mined(
      chain.wallet(SENDER!).writeContract({
        address: deployed.address,
        abi: holdfastEscrowAbi,
        functionName: 'createEscrow',
        args: [uuidToOnchainId(id), RECEIVER!.address, chain.token, amount, ATTESTER!.address, 0n],
      }),
    );
    return { id, receipt };
  };
  return { address: deployed.address as Address, deploymentBlock: Number(deployed.blockNumber), lock };
}

const follow = (network: 'base-sepolia' | 'ethereum-sepolia' | 'base', address: string, deploymentBlock: number) =>
  sendCommand(nats.bus, INDEXER_COMMANDS.followContract, {
    network,
    address,
    deploymentBlock,
    workspaceId: randomUUID(),
    deploymentId: randomUUID(),
  });

// Both chains have the same deployer: their dedicated escrows share an address, so the network tells them apart.
const createdIn =
  (address: string, network = 'base-sepolia') =>
  (messages: Awaited<ReturnType<typeof stream.read>>) =>
    messages.filter(
      (m) =>
        m.event.kind === 'escrow.created' &&
        m.event.network === network &&
        m.event.contractAddress === getAddress(address) &&
        !m.event.removed,
    );

beforeAll(async () => {
  [db, nats, base, sepoliaAnvil] = await Promise.all([
    createTestDatabase(),
    createTestBus(),
    startChain(),
    startAnvil({ chainId: 11155111 }),
  ]);
  sepolia = await startChain(sepoliaAnvil);
  sql = postgres(db.url, { max: 1, onnotice: () => {} });
  stream = chainStream(nats.bus);
  service = await start();
});

afterAll(async () => {
  await service?.stop();
  await sql?.end({ timeout: 5 });
  await Promise.all([base?.stop(), sepolia?.stop()]);
  await nats?.dispose();
  await db?.drop();
});

describe('a contract registered on a followed network', () => {
  it('is followed from its deployment block: its past events first, then the new ones', async () => {
    const dedicated = await dedicatedEscrow(base);
    const before = await dedicated.lock(usdc('7'));
    // The indexer has read past the deployment before it hears of the contract.
    await base.createEscrow({});
    await stream.until((m) => m.some((x) => x.event.blockNumber > dedicated.deploymentBlock), 'the cursor past the deployment');
    expect(createdIn(dedicated.address)(await stream.read())).toEqual([]);

    const reply = await follow('base-sepolia', dedicated.address.toLowerCase(), dedicated.deploymentBlock);
    expect(reply).toEqual({
      network: 'base-sepolia',
      address: getAddress(dedicated.address),
      deploymentBlock: dedicated.deploymentBlock,
      registeredAt: expect.any(String),
      alreadyFollowed: false,
    });
    const history = await stream.until((m) => createdIn(dedicated.address)(m).length === 1, 'the escrow locked before the registration');
    expect(createdIn(dedicated.address)(history)[0]?.event).toMatchObject({
      transactionId: before.id,
      transactionHash: before.receipt.transactionHash,
    });

    const after = await dedicated.lock();
    const messages = await stream.until((m) => createdIn(dedicated.address)(m).length === 2, 'the escrow locked after the registration');
    expect(createdIn(dedicated.address)(messages).map((m) => m.event.transactionId)).toEqual([before.id, after.id]);

    // A repeated command answers the first registration; nothing is published twice.
    const again = await follow('base-sepolia', dedicated.address, dedicated.deploymentBlock);
    expect(again).toEqual({ ...reply, alreadyFollowed: true });
    const [row] =
      await sql`select address, deployment_block, workspace_id from indexer.registered_contracts where address = ${getAddress(dedicated.address)}`;
    expect(row).toMatchObject({ deployment_block: String(dedicated.deploymentBlock) });
    await base.createEscrow({});
    const later = await stream.read();
    expect(createdIn(dedicated.address)(later)).toHaveLength(2);
    expect(new Set(later.map((m) => m.msgId)).size).toBe(later.length);
  });

  it('answers alreadyFollowed for a contract of ESCROW_CONTRACTS', async () => {
    const reply = await follow('base-sepolia', base.escrow, Number(base.deploymentBlock));
    expect(reply.alreadyFollowed).toBe(true);
  });
});

describe('a contract registered on a network without ESCROW_CONTRACTS', () => {
  it('starts a follower for the network without a restart', async () => {
    const ready = await request(`${service.url}/health/ready`);
    expect(((await ready.body.json()) as { checks: Record<string, string> }).checks['indexer:ethereum-sepolia']).toBe('ok');
    const dedicated = await dedicatedEscrow(sepolia);
    const locked = await dedicated.lock();
    await follow('ethereum-sepolia', dedicated.address, dedicated.deploymentBlock);
    const messages = await stream.until(
      (m) => createdIn(dedicated.address, 'ethereum-sepolia')(m).length === 1,
      'the escrow on ethereum-sepolia',
    );
    const [message] = createdIn(dedicated.address, 'ethereum-sepolia')(messages);
    expect(message).toMatchObject({ subject: 'chain.ethereum-sepolia.escrow.created' });
    expect(message?.event).toMatchObject({ network: 'ethereum-sepolia', chainId: 11155111, transactionId: locked.id });
  });

  it('keeps following registered contracts after a restart', async () => {
    await service.stop();
    const [registered] = await sql<
      { address: string }[]
    >`select address from indexer.registered_contracts where network = 'ethereum-sepolia'`;
    const address = registered!.address as Address;
    const lock = async () => {
      const id = randomUUID();
      await sepolia.mined(
        sepolia.wallet(SENDER!).writeContract({
          address,
          abi: holdfastEscrowAbi,
          functionName: 'createEscrow',
          args: [uuidToOnchainId(id), RECEIVER!.address, sepolia.token, usdc('1'), ATTESTER!.address, 0n],
        }),
      );
      return id;
    };
    const whileDown = await lock();
    service = await start();
    const onSepolia = createdIn(address, 'ethereum-sepolia');
    const messages = await stream.until(
      (m) => onSepolia(m).some((x) => x.event.transactionId === whileDown),
      'the escrow locked while down',
    );
    expect(onSepolia(messages)).toHaveLength(2);
  });
});

describe('lookupContract (payments asks it before it believes an EscrowCreated log)', () => {
  const lookup = (network: 'base-sepolia' | 'ethereum-sepolia', address: string) =>
    sendCommand(nats.bus, INDEXER_COMMANDS.lookupContract, { network, address });

  it('names a configured contract, a registered one with its workspace, and nothing else', async () => {
    expect(await lookup('base-sepolia', base.escrow.toLowerCase())).toEqual({
      network: 'base-sepolia',
      address: getAddress(base.escrow),
      source: 'configured',
      deploymentBlock: null,
      workspaceId: null,
    });
    const dedicated = await dedicatedEscrow(base);
    const unregistered = await lookup('base-sepolia', dedicated.address);
    expect(unregistered).toMatchObject({ source: null, workspaceId: null });
    const workspaceId = randomUUID();
    await sendCommand(nats.bus, INDEXER_COMMANDS.followContract, {
      network: 'base-sepolia',
      address: dedicated.address,
      deploymentBlock: dedicated.deploymentBlock,
      workspaceId,
      deploymentId: randomUUID(),
    });
    expect(await lookup('base-sepolia', dedicated.address.toLowerCase())).toEqual({
      network: 'base-sepolia',
      address: getAddress(dedicated.address),
      source: 'registered',
      deploymentBlock: dedicated.deploymentBlock,
      workspaceId,
    });
    // Registered on one network is not registered on another (same deployer, same address).
    expect((await lookup('ethereum-sepolia', dedicated.address)).source).toBeNull();
  });
});

describe('refusals', () => {
  it('answers CONTRACT_NOT_AVAILABLE for a network the indexer has no RPC for, VALIDATION_ERROR for a bad payload', async () => {
    const error = await follow('base', '0x0000000000000000000000000000000000000001', 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).toObject()).toMatchObject({
      code: 'CONTRACT_NOT_AVAILABLE',
      statusCode: 503,
      details: { reason: 'no_rpc' },
    });
    const raw = await nats.bus.nc.request(
      `${nats.prefix}${INDEXER_COMMANDS.followContract.subject}`,
      JSON.stringify({ network: 'base-sepolia' }),
    );
    expect(raw.json()).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    expect(await sql`select 1 from indexer.registered_contracts where network = 'base'`).toHaveLength(0);
  });
});
