import { randomBytes, randomUUID } from 'node:crypto';
import { PAYMENTS_COMMANDS, WORKSPACE_TRANSACTION_COMMANDS } from '@holdfast/contracts';
import { sendCommand } from '@holdfast/messaging';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsEnv } from '../support/harness.js';
import { address } from '../support/transactions.js';

// Issue 28 item 7: a workspace-to-payments command names its workspace, and payments checks that
// the platform it acts on is that workspace's. submit-escrow-hash trusted the platformId it was
// sent: workspace A's sender (a workspace-service bug, or anyone holding its NATS user) could move
// workspace B's transaction by naming B's platform; the reads (list, get, stats) read any platform named.

const e = fileFixture(() => startPaymentsEnv());
const C = WORKSPACE_TRANSACTION_COMMANDS;

interface Workspace {
  workspaceId: string;
  platformId: string;
}
let a: Workspace;
let b: Workspace;
let bTransactionId: string;

async function newWorkspace(): Promise<Workspace> {
  const workspaceId = randomUUID();
  const cred = await sendCommand(e.nats.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId });
  return { workspaceId, platformId: cred.platformId };
}

const rowOf = async (id: string) => (await e.sql`select status, tx_hash from transactions where id = ${id}`)[0] as Record<string, unknown>;

beforeAll(async () => {
  a = await newWorkspace();
  b = await newWorkspace();
  const created = await sendCommand(e.nats.bus, C.create, {
    workspaceId: b.workspaceId,
    platformId: b.platformId,
    transaction: {
      fromAddress: address(),
      toAddress: address(),
      amount: '5',
      blockchainNetwork: 'base-sepolia',
      currency: 'USDC',
      orchestrationType: 'platform',
    },
  });
  bTransactionId = created.id;
});

describe('workspace-to-payments commands carry their workspace (security)', () => {
  it("refuses submit-escrow-hash on another workspace's platform: NOT_FOUND, the transaction unchanged", async () => {
    const before = await rowOf(bTransactionId);
    await expect(
      sendCommand(e.nats.bus, C.submitEscrowHash, {
        workspaceId: a.workspaceId,
        platformId: b.platformId,
        transactionId: bTransactionId,
        transactionHash: `0x${randomBytes(32).toString('hex')}`,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/Platform/) });
    expect(await rowOf(bTransactionId)).toEqual(before);
    expect(before).toMatchObject({ status: 'pending', tx_hash: null });
  });

  it("reads nothing of another workspace's platform named in a list, get or stats for workspace A", async () => {
    const asA = { workspaceIds: [a.workspaceId], platformIds: [b.platformId], addresses: [] };
    const listed = await sendCommand(e.nats.bus, C.list, { ...asA, filters: {}, page: 1, limit: 20 });
    expect(listed).toEqual({ transactions: [], total: 0 });
    await expect(sendCommand(e.nats.bus, C.get, { ...asA, transactionId: bTransactionId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const { stats } = await sendCommand(e.nats.bus, C.stats, asA);
    expect(Object.values(stats).every((s) => s.count === 0)).toBe(true);
    // Its own workspace reads it.
    const asB = { workspaceIds: [b.workspaceId], platformIds: [b.platformId], addresses: [] };
    expect(await sendCommand(e.nats.bus, C.get, { ...asB, transactionId: bTransactionId })).toMatchObject({
      id: bTransactionId,
      platformId: b.platformId,
    });
    expect((await sendCommand(e.nats.bus, C.list, { ...asB, filters: {}, page: 1, limit: 20 })).total).toBe(1);
  });

  it('refuses a submit-escrow-hash without its workspace (the contract requires it)', async () => {
    await expect(
      sendCommand(e.nats.bus, C.submitEscrowHash, {
        platformId: b.platformId,
        transactionId: bTransactionId,
        transactionHash: `0x${randomBytes(32).toString('hex')}`,
      } as never),
    ).rejects.toThrow(/workspaceId/);
  });

  it("passes the platform check for the workspace's own platform (and reaches the chain, unreachable here)", async () => {
    const answer = await sendCommand(e.nats.bus, C.submitEscrowHash, {
      workspaceId: b.workspaceId,
      platformId: b.platformId,
      transactionId: bTransactionId,
      transactionHash: `0x${randomBytes(32).toString('hex')}`,
    }).catch((error: unknown) => error);
    expect(answer).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: expect.stringMatching(/RPC/) });
  });
});
