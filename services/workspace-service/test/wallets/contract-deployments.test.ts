import { randomUUID } from 'node:crypto';
import { AppError, type ContractNetwork } from '@holdfast/contracts';
import { DEFAULT_EXPIRY_PERIOD, deployEscrow, holdfastEscrowAbi, holdfastEscrowDeployedBytecode } from '@holdfast/escrow';
import { type Anvil, freePort, rejectionOf, startAnvil, testLogger } from '@holdfast/test-fixtures';
import { eq } from 'drizzle-orm';
import { type Address, getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractDeployments } from '../../src/db/schema.js';
import { anvilDevKey, LOCAL_DEPLOYER_INDEX } from '../../src/modules/wallets/common/settings.js';
import { createContractDeploymentRepository } from '../../src/modules/wallets/contracts/repository.js';
import { type ContractDeploymentService, createContractDeploymentService } from '../../src/modules/wallets/contracts/service.js';
import { anvilClients, DEPLOYED_ESCROW } from '../support/chain.js';
import { auditRecorder, openTestDatabase, type TestDb } from '../support/db.js';
import { insertWorkspace } from '../support/tenants.js';

let db: TestDb;
let anvil: Anvil;
let sharedEscrow: Address;
let service: ContractDeploymentService;
const audit = auditRecorder();
const actor = { actorId: randomUUID() };
const deployerKey = anvilDevKey(LOCAL_DEPLOYER_INDEX);

function build(
  overrides: {
    chainRpcUrls?: Record<string, string>;
    sharedEscrows?: Partial<Record<ContractNetwork, Hex>>;
    deployerPrivateKey?: Hex | undefined;
  } = {},
) {
  return createContractDeploymentService({
    repository: createContractDeploymentRepository(db.db),
    chainRpcUrls: overrides.chainRpcUrls ?? { 'base-sepolia': anvil.rpcUrl },
    sharedEscrows: overrides.sharedEscrows ?? { 'base-sepolia': sharedEscrow },
    deployerPrivateKey: 'deployerPrivateKey' in overrides ? overrides.deployerPrivateKey : deployerKey,
    rpcTimeoutMs: 5000,
    deploymentsPerDay: 1000,
    audit: audit.sink,
    logger: testLogger('contracts'),
  });
}

const appError = (promise: Promise<unknown>) => rejectionOf(promise, AppError);

beforeAll(async () => {
  [db, anvil] = await Promise.all([openTestDatabase(), startAnvil()]);
  // The shared escrow, as the local start script deploys it (with another dev account).
  const chain = anvilClients(anvil.rpcUrl);
  sharedEscrow = (await deployEscrow({ walletClient: chain.walletClient, publicClient: chain.publicClient })).address;
  service = build();
});

afterAll(async () => {
  await Promise.all([db?.drop(), anvil?.stop()]);
});

describe('shared deployments from ESCROW_CONTRACTS', () => {
  it('are listed and used when a workspace has no dedicated contract', async () => {
    const workspaceId = await insertWorkspace(db.db);
    const listed = await service.list(workspaceId);
    expect(listed).toEqual([
      expect.objectContaining({
        workspaceId: null,
        network: 'base-sepolia',
        contractType: 'escrow',
        contractAddress: sharedEscrow,
        status: 'active',
        isShared: true,
      }),
    ]);
    expect(await service.getForNetwork(workspaceId, 'base-sepolia')).toEqual({
      address: sharedEscrow,
      network: 'base-sepolia',
      isShared: true,
      deploymentId: listed[0]?.id,
    });
    expect((await appError(service.getForNetwork(workspaceId, 'base'))).toObject()).toMatchObject({ code: 'NOT_FOUND', statusCode: 404 });
  });

  it('follow the configuration: a replaced address is deprecated, the same one keeps its id', async () => {
    const workspaceId = await insertWorkspace(db.db);
    const before = await service.getForNetwork(workspaceId, 'base-sepolia');
    const again = build();
    expect((await again.getForNetwork(workspaceId, 'base-sepolia')).deploymentId).toBe(before.deploymentId);
    const moved = build({ sharedEscrows: { 'base-sepolia': '0x00000000000000000000000000000000000000aa' } });
    expect(await moved.getForNetwork(workspaceId, 'base-sepolia')).toMatchObject({
      address: '0x00000000000000000000000000000000000000aa',
      isShared: true,
    });
    const [old] = await db.db.select().from(contractDeployments).where(eq(contractDeployments.id, before.deploymentId));
    expect(old?.status).toBe('deprecated');
    // Back to the original for the other tests.
    await build().syncShared();
    expect((await build().getForNetwork(workspaceId, 'base-sepolia')).deploymentId).toBe(before.deploymentId);
  });
});

describe('dedicated deployments', () => {
  const workspaceId = randomUUID();
  let deploymentId: string;
  beforeAll(async () => {
    await insertWorkspace(db.db, { id: workspaceId });
  });

  it('deploys a real escrow on the local chain', async () => {
    const deployed = await service.deploy(workspaceId, 'base-sepolia', actor);
    expect(deployed).toEqual(DEPLOYED_ESCROW);
    deploymentId = deployed.deploymentId;
    const { publicClient } = anvilClients(anvil.rpcUrl);
    const address = deployed.contractAddress as Address;
    // The escrow's runtime code (its two immutable periods are filled in at deployment, same length).
    const code = await publicClient.getCode({ address });
    expect(code?.length).toBe(holdfastEscrowDeployedBytecode.length);
    const receipt = await publicClient.getTransactionReceipt({ hash: deployed.transactionHash as Hex });
    expect(receipt).toMatchObject({
      status: 'success',
      contractAddress: address.toLowerCase(),
      from: privateKeyToAccount(deployerKey).address.toLowerCase(),
    });
    expect(Number(receipt.gasUsed)).toBe(deployed.gasUsed);
    expect(Number(receipt.blockNumber)).toBe(deployed.blockNumber);
    expect(await publicClient.readContract({ address, abi: holdfastEscrowAbi, functionName: 'expiryPeriod' })).toBe(DEFAULT_EXPIRY_PERIOD);

    const [row] = await db.db.select().from(contractDeployments).where(eq(contractDeployments.id, deploymentId));
    expect(row).toMatchObject({
      workspaceId,
      network: 'base-sepolia',
      status: 'active',
      isShared: false,
      contractAddress: getAddress(address),
      deploymentTxHash: deployed.transactionHash,
      deployedBy: actor.actorId,
      metadata: {
        gasUsed: deployed.gasUsed,
        blockNumber: deployed.blockNumber,
        deployerAddress: privateKeyToAccount(deployerKey).address,
        factoryVersion: null,
      },
    });
    // One audit entry for the act.
    expect(audit.entries.filter((e) => e.resourceId === deploymentId)).toEqual([
      expect.objectContaining({
        action: 'contract_deployment.deploy',
        workspaceId,
        changes: {
          network: { from: null, to: 'base-sepolia' },
          status: { from: null, to: 'active' },
          contractAddress: { from: null, to: getAddress(address) },
        },
      }),
    ]);
    // Still to be announced to the chain-indexer (no registration in this service).
    expect(row?.indexerRegisteredAt).toBeNull();
  });

  it('is the contract new transactions use, before the shared one', async () => {
    expect(await service.getForNetwork(workspaceId, 'base-sepolia')).toMatchObject({ isShared: false, deploymentId });
    const listed = await service.list(workspaceId);
    expect(listed.map((d) => [d.isShared, d.status])).toEqual([
      [false, 'active'],
      [true, 'active'],
    ]);
    // Another workspace does not see it.
    expect(await service.getForNetwork(randomUUID(), 'base-sepolia')).toMatchObject({ isShared: true });
    expect((await service.list(randomUUID())).every((d) => d.isShared)).toBe(true);
  });

  it('answers 409 when the workspace already has one on the network', async () => {
    expect((await appError(service.deploy(workspaceId, 'base-sepolia', actor))).toObject()).toMatchObject({
      code: 'CONFLICT',
      statusCode: 409,
    });
  });

  it('deploys once when two requests race', async () => {
    const racing = await insertWorkspace(db.db);
    const results = await Promise.allSettled([
      service.deploy(racing, 'base-sepolia', actor),
      service.deploy(racing, 'base-sepolia', actor),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected?.reason).toMatchObject({ code: 'CONFLICT' });
    const rows = await db.db.select().from(contractDeployments).where(eq(contractDeployments.workspaceId, racing));
    expect(rows).toHaveLength(1);
  });

  it('deprecates: no longer used for new transactions, idempotent, only the workspace own', async () => {
    await appError(service.deprecate(randomUUID(), deploymentId, actor)).then((e) => expect(e.code).toBe('NOT_FOUND'));
    const shared = await service.getForNetwork(randomUUID(), 'base-sepolia');
    expect((await appError(service.deprecate(workspaceId, shared.deploymentId, actor))).code).toBe('NOT_FOUND');
    const deprecated = await service.deprecate(workspaceId, deploymentId, actor);
    expect(deprecated).toMatchObject({ id: deploymentId, status: 'deprecated', workspaceId, isShared: false });
    expect(await service.getForNetwork(workspaceId, 'base-sepolia')).toMatchObject({ isShared: true, address: sharedEscrow });
    expect(await service.deprecate(workspaceId, deploymentId, actor)).toEqual(deprecated);
    expect(audit.entries.at(-1)).toMatchObject({
      action: 'contract_deployment.deprecate',
      changes: { status: { from: 'active', to: 'deprecated' } },
    });
  });

  it('deploys a new one once the old one is deprecated', async () => {
    const again = await service.deploy(workspaceId, 'base-sepolia', actor);
    expect(again.deploymentId).not.toBe(deploymentId);
    expect(await service.getForNetwork(workspaceId, 'base-sepolia')).toMatchObject({ deploymentId: again.deploymentId, isShared: false });
  });
});

describe('when deployment is not available', () => {
  it('answers 503 CONTRACT_NOT_AVAILABLE without an RPC or a deployer key, writing nothing', async () => {
    const workspaceId = await insertWorkspace(db.db);
    expect((await appError(service.deploy(workspaceId, 'base', actor))).toObject()).toMatchObject({
      code: 'CONTRACT_NOT_AVAILABLE',
      statusCode: 503,
      details: { network: 'base', reason: 'no_rpc' },
    });
    expect((await appError(build({ deployerPrivateKey: undefined }).deploy(workspaceId, 'base-sepolia', actor))).toObject()).toMatchObject({
      code: 'CONTRACT_NOT_AVAILABLE',
      details: { reason: 'no_deployer_key' },
    });
    const down = build({ chainRpcUrls: { 'base-sepolia': `http://127.0.0.1:${await freePort()}` } });
    expect((await appError(down.deploy(workspaceId, 'base-sepolia', actor))).toObject()).toMatchObject({
      details: { reason: 'rpc_unreachable' },
    });
    // An RPC that serves another chain than the network's is refused.
    const mislabelled = build({ chainRpcUrls: { ethereum: anvil.rpcUrl } });
    expect((await appError(mislabelled.deploy(workspaceId, 'ethereum', actor))).toObject()).toMatchObject({
      details: { reason: 'chain_mismatch' },
    });
    expect(await db.db.select().from(contractDeployments).where(eq(contractDeployments.workspaceId, workspaceId))).toEqual([]);
  });

  it('records a failed deployment (deployer without funds) and lets a later one succeed', async () => {
    const workspaceId = await insertWorkspace(db.db);
    const broke = build({ deployerPrivateKey: generatePrivateKey() });
    const error = await appError(broke.deploy(workspaceId, 'base-sepolia', actor));
    expect(error.toObject()).toMatchObject({ code: 'CONTRACT_NOT_AVAILABLE', statusCode: 503, details: { reason: 'deployment_failed' } });
    expect(error.message).not.toContain(anvil.rpcUrl);
    const [failed] = await db.db.select().from(contractDeployments).where(eq(contractDeployments.workspaceId, workspaceId));
    expect(failed).toMatchObject({ status: 'failed', contractAddress: null, metadata: { error: expect.any(String) } });
    expect((await appError(service.deprecate(workspaceId, failed!.id, actor))).toObject()).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      statusCode: 409,
      details: { from: 'failed', action: 'deprecate' },
    });
    const ok = await service.deploy(workspaceId, 'base-sepolia', actor);
    expect(ok.status).toBe('active');
    expect(
      (await service.list(workspaceId))
        .filter((d) => !d.isShared)
        .map((d) => d.status)
        .sort(),
    ).toEqual(['active', 'failed']);
  });

  it('gives up a pending deployment abandoned by a stopped process', async () => {
    const workspaceId = await insertWorkspace(db.db);
    await db.db.insert(contractDeployments).values({
      id: randomUUID(),
      workspaceId,
      network: 'base-sepolia',
      status: 'pending',
      createdAt: new Date(Date.now() - 60 * 60_000),
    });
    expect((await service.deploy(workspaceId, 'base-sepolia', actor)).status).toBe('active');
    const rows = await db.db.select().from(contractDeployments).where(eq(contractDeployments.workspaceId, workspaceId));
    expect(rows.map((r) => r.status).sort()).toEqual(['active', 'failed']);
  });
});
