import { type DomainEvent, STREAMS } from '@holdfast/contracts';
import { holdfastEscrowAbi, mockUsdcAbi } from '@holdfast/contracts/escrow';
import { EscrowStatus, uuidToOnchainId } from '@holdfast/escrow';
import { streamMessages } from '@holdfast/messaging/testing';
import { fileFixture } from '@holdfast/test-fixtures';
import { request } from 'undici';
import type { Address, Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTESTER, eventsOf, platformWithCredentials, publishChain, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { bearer, call } from '../support/harness.js';

// A payment's whole life through the Payments API v2 and a real chain: created by the API, funds
// locked by the sender's own createEscrow on anvil, the CHAIN event (as the indexer publishes it)
// moving it to escrowed, the release attested by the API, paid out by the attester's worker on
// chain, and completed from the chain's release event. Each move announced exactly once, in order.
// A whole life takes seconds (blocks, a hold, the worker's poll): generous limits for a loaded machine.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;

const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  p = await platformWithCredentials(e, 'End to end');
}, 60_000);

const get = async (id: string) => (await call(e.svc.url, 'GET', `/api/v2/transactions/${id}`, { headers: bearer(p.token) })).body;

/** The transaction as the API answers it once it has the status (a chain event applied). */
const getWhen = (id: string, status: string) =>
  waitFor(
    async () => {
      const t = await get(id);
      return t.status === status && t;
    },
    status,
    60_000,
  );

describe('a payment through the API and the chain', () => {
  it('created -> escrowed (chain event) -> release attested -> paid by the attester -> completed', async () => {
    const sender = e.world.sender.account.address;
    const receiver = e.world.receiver.account.address;
    const created = await call(e.svc.url, 'POST', '/api/v2/transactions', {
      headers: { ...bearer(p.token), 'idempotency-key': `e2e-${Date.now()}` },
      body: {
        fromAddress: sender,
        toAddress: receiver,
        amount: 12.5,
        signerType: 'external_wallet',
        // A short hold so the attester may release within the test.
        template: { templateName: 'e2e', controls: [], holdPeriodSeconds: 2 },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.id;
    expect(created.body).toMatchObject({ status: 'pending_user_action', orchestrationType: 'platform', amount: '12.5' });
    expect(created.body.rescind).toMatchObject({ allowed: true });
    // What the sender's wallet needs is in the answer.
    expect(created.body.escrow).toEqual({
      contractAddress: e.world.escrow,
      tokenAddress: e.world.usdc,
      attester: ATTESTER,
      onchainId: uuidToOnchainId(id),
      amountBaseUnits: '12500000',
      holdDeadline: Math.floor(Date.parse(created.body.rescind.deadline) / 1000),
    });

    // The sender's wallet locks the funds under the transaction's on-chain id.
    const receiverBefore = await e.world.balance(receiver);
    const lock = await e.world.createEscrow(id, 12_500_000n, { holdDeadline: BigInt(created.body.escrow.holdDeadline) });
    await publishChain(e.nats.bus, await e.world.indexed(lock));
    const escrowed = await getWhen(id, 'escrowed');
    expect(escrowed).toMatchObject({ escrowAddress: e.world.escrow, txHash: lock.transactionHash });
    // The money-in-flight dashboard sees it held (infra/observability).
    const held = (await request(`${e.svc.url}/metrics`).then((r) => r.body.text())) as string;
    expect(held).toMatch(/payments_transactions_in_flight\{status="escrowed"[^}]*\} 1\n/);
    expect(held).toMatch(/payments_escrows_past_hold\{status="escrowed"[^}]*\} 0\n/);

    const attested = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: bearer(p.token) });
    expect(attested.status, JSON.stringify(attested.body)).toBe(200);
    expect(attested.body.transaction.status).toBe('in_review');

    // The worker releases with the attester key once the hold has ended, on an idle anvil too
    // (no block since the escrow: the worker goes by the clock, the release's block is stamped now).
    const settlement = await waitFor(
      async () => {
        const [s] = await e.sql`select status, tx_hash from settlements where transaction_id = ${id} and kind = 'release'`;
        return s?.status === 'done' && s.tx_hash && s;
      },
      'the release on chain',
      60_000,
    );
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Released);
    expect((await e.world.balance(receiver)) - receiverBefore).toBe(12_500_000n);

    const release = await e.world.publicClient.getTransactionReceipt({ hash: settlement.tx_hash });
    await publishChain(e.nats.bus, await e.world.indexed(release));
    const completed = await getWhen(id, 'completed');
    expect(completed.txHash).toBe(release.transactionHash);

    const events = await eventsOf(e.sql, id);
    expect(events.map((e) => e.type)).toEqual(['transaction.created', 'transaction.escrowed', 'transaction.completed']);
    expect(events[1]?.payload.data).toMatchObject({ escrowAddress: e.world.escrow, txHash: lock.transactionHash });
    const moves = await e.sql`select action from transaction_transitions where transaction_id = ${id} order by seq`;
    expect(moves.map((m) => m.action)).toEqual(['create', 'lock_escrow', 'attest_release', 'release']);

    // What an SRE watches: both CHAIN events applied, no instruction left owed.
    const metrics = (await request(`${e.svc.url}/metrics`).then((r) => r.body.text())) as string;
    expect(metrics).toMatch(/payments_chain_events_total\{kind="escrow.created",outcome="applied"[^}]*\} 1/);
    expect(metrics).toMatch(/payments_chain_events_total\{kind="escrow.released",outcome="applied"[^}]*\} 1/);
    expect(metrics).toMatch(/payments_settlements\{status="pending"[^}]*\} 0/);
    expect(metrics).toMatch(/payments_transactions_in_flight\{status="escrowed"[^}]*\} 0\n/);
    expect(metrics).toMatch(/payments_transactions_in_flight\{status="in_review"[^}]*\} 0\n/);
  }, 120_000);

  it('a batch created through the API, locked by one createBatch call from the signer: every leg escrowed, one event each', async () => {
    const receivers = [e.world.receiver.account.address, e.world.stranger.account.address, e.world.receiver.account.address];
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(p.token),
      body: {
        fromAddress: e.world.sender.account.address,
        legs: [
          { toAddress: receivers[0], amount: 1.25 },
          { toAddress: receivers[1], amount: '2.5' },
          { toAddress: receivers[2], amount: 0.75 },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const next = res.body.nextAction;
    expect(next).toMatchObject({ type: 'create_batch_escrow', receivers, amounts: ['1.25', '2.5', '0.75'] });
    expect(next.escrow).toMatchObject({
      contractAddress: e.world.escrow,
      tokenAddress: e.world.usdc,
      attester: ATTESTER,
      amountsBaseUnits: ['1250000', '2500000', '750000'],
      totalBaseUnits: '4500000',
    });

    // The client-side signer: approve the total, then createBatch with the legs' ids, in leg order.
    const { sender } = e.world;
    await e.world.mint(sender.account.address, 4_500_000n);
    await e.world.mined(
      sender.writeContract({ address: e.world.usdc, abi: mockUsdcAbi, functionName: 'approve', args: [e.world.escrow, 4_500_000n] }),
    );
    const lock = await e.world.mined(
      sender.writeContract({
        address: next.escrow.contractAddress as Address,
        abi: holdfastEscrowAbi,
        functionName: 'createBatch',
        args: [
          next.ids as Hex[],
          next.receivers as Address[],
          next.escrow.amountsBaseUnits.map((a: string) => BigInt(a)),
          next.escrow.tokenAddress as Address,
          next.escrow.attester as Address,
          BigInt(next.escrow.holdDeadline),
        ],
      }),
    );
    await publishChain(e.nats.bus, await e.world.indexed(lock));

    const legIds: string[] = res.body.legs.map((l: { id: string }) => l.id);
    const batch = await waitFor(
      async () => {
        const b = await call(e.svc.url, 'GET', `/api/v2/transactions/batches/${res.body.id}`, { headers: bearer(p.token) });
        return b.body.legs.every((l: { status: string }) => l.status === 'escrowed') && b.body;
      },
      'every leg escrowed',
      60_000,
    );
    expect(batch.status).toBe('submitted');
    for (const leg of batch.legs) expect(leg).toMatchObject({ escrowAddress: e.world.escrow, txHash: lock.transactionHash });

    // A subscriber on the EVENTS stream sees one transaction.escrowed per leg, with the address and hash.
    const escrowedEvents = await waitFor(
      async () => {
        const seen = (await streamMessages<DomainEvent>(e.nats.bus, STREAMS.EVENTS.name)).filter(
          (e) => e.type === 'transaction.escrowed' && legIds.includes((e.data as { transaction: { id: string } }).transaction.id),
        );
        return seen.length >= legIds.length && seen;
      },
      'transaction.escrowed on the stream for every leg',
      60_000,
    );
    expect(escrowedEvents).toHaveLength(legIds.length);
    for (const event of escrowedEvents) expect(event.data).toMatchObject({ escrowAddress: e.world.escrow, txHash: lock.transactionHash });
  }, 120_000);
});
