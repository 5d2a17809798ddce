import { randomBytes } from 'node:crypto';
import { mockUsdcAbi } from '@holdfast/contracts/escrow';
import { EscrowStatus } from '@holdfast/escrow';
import { ANVIL_ACCOUNTS, fileFixture } from '@holdfast/test-fixtures';
import { getAddress } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AMOUNT,
  eventsOf,
  insertTransaction,
  platformWithCredentials,
  publishChain,
  RECEIVER,
  SENDER,
  startChainPaymentsEnv,
  waitFor,
} from '../support/chain.js';
import { bearer, call, key } from '../support/harness.js';

// The on-chain operations over HTTP, on a private anvil with the real escrow and MockUSDC, the
// settlement worker holding the attester key, and CHAIN messages published as the indexer does.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;
let other: Awaited<ReturnType<typeof platformWithCredentials>>;
const STRANGER = ANVIL_ACCOUNTS[3].address;

const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  p = await platformWithCredentials(e, 'Chain platform');
  other = await platformWithCredentials(e, 'Other platform');
}, 60_000);

const v2 = () => bearer(p.token);
const statusOf = async (id: string) => (await e.sql`select status from transactions where id = ${id}`)[0]?.status as string;
const randomHash = () => `0x${randomBytes(32).toString('hex')}`;
/** A transaction of the platform from SENDER to RECEIVER, written straight to the table (pending unless told). */
const insertOwnTransaction = (values: Omit<Parameters<typeof insertTransaction>[1], 'platformId' | 'from' | 'to'> = {}) =>
  insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER, ...values });

/** A platform transaction escrowed on chain and recorded through submit-escrow-hash. */
async function escrowed(options: { holdDeadline?: bigint; rowHold?: string | null; rescindPolicy?: Record<string, unknown> } = {}) {
  const id = await insertOwnTransaction({ holdDeadline: options.rowHold, rescindPolicy: options.rescindPolicy });
  const receipt = await e.world.createEscrow(id, AMOUNT, { holdDeadline: options.holdDeadline ?? 0n });
  const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
    headers: v2(),
    body: { transactionHash: receipt.transactionHash },
  });
  expect(res.status).toBe(200);
  return { id, receipt };
}

describe('submit hash (raw orchestration)', () => {
  const raw = () => insertOwnTransaction({ orchestrationType: 'raw' });

  it('completes the transaction when the receipt holds the exact transfer (v2), once', async () => {
    const id = await raw();
    await e.world.mint(SENDER, AMOUNT);
    const receipt = await e.world.transfer(RECEIVER, AMOUNT);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, {
      headers: v2(),
      body: { txHash: receipt.transactionHash },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      transaction: { id, status: 'completed', txHash: receipt.transactionHash, chainId: 84532 },
    });
    const again = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, {
      headers: v2(),
      body: { txHash: receipt.transactionHash },
    });
    expect(again.status).toBe(200);
    const events = await eventsOf(e.sql, id);
    expect(events.map((e) => e.type)).toEqual(['transaction.completed']);
    expect(events[0]?.payload.data).toMatchObject({ transaction: { id, status: 'completed' }, txHash: receipt.transactionHash });
  });

  it('takes the v1 path with an API key', async () => {
    const id = await raw();
    await e.world.mint(SENDER, AMOUNT);
    const receipt = await e.world.transfer(RECEIVER, AMOUNT);
    const res = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/submit-hash`, {
      headers: key(p.apiKey),
      body: { txHash: receipt.transactionHash },
    });
    expect(res.status).toBe(200);
    expect(await statusOf(id)).toBe('completed');
  });

  it('refuses a transfer of another amount (400) and changes nothing', async () => {
    const id = await raw();
    await e.world.mint(SENDER, 1_000_000n);
    const receipt = await e.world.transfer(RECEIVER, 1_000_000n);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, {
      headers: v2(),
      body: { txHash: receipt.transactionHash },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'CHAIN_RECEIPT_MISMATCH', details: { reason: 'no_matching_transfer' } });
    expect(await statusOf(id)).toBe('pending');
    expect(await eventsOf(e.sql, id)).toEqual([]);
  });

  it('answers 409 CHAIN_TRANSACTION_PENDING for a hash the chain does not know', async () => {
    const id = await raw();
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, { headers: v2(), body: { txHash: randomHash() } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CHAIN_TRANSACTION_PENDING');
    expect(await statusOf(id)).toBe('pending');
  });

  it('lets one transfer confirm one transaction only', async () => {
    const [a, b] = [await raw(), await raw()];
    await e.world.mint(SENDER, AMOUNT);
    const receipt = await e.world.transfer(RECEIVER, AMOUNT);
    const body = { txHash: receipt.transactionHash };
    expect((await call(e.svc.url, 'POST', `/api/v2/transactions/${a}/hash`, { headers: v2(), body })).status).toBe(200);
    const second = await call(e.svc.url, 'POST', `/api/v2/transactions/${b}/hash`, { headers: v2(), body });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');
    expect(await statusOf(b)).toBe('pending');
  });

  it('fails the transaction when its transfer reverted', async () => {
    const id = await raw();
    // The transaction's own transfer, with too little gas (sent without estimation), so that it is mined and reverts.
    const hash = await e.world.sender.writeContract({
      address: e.world.usdc,
      abi: mockUsdcAbi,
      functionName: 'transfer',
      args: [RECEIVER, AMOUNT],
      gas: 23_000n,
    });
    const receipt = await e.world.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, { headers: v2(), body: { txHash: hash } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, transaction: { status: 'failed', failureReason: 'The transfer reverted on chain' } });
    expect((await eventsOf(e.sql, id)).map((e) => e.type)).toEqual(['transaction.failed']);
  });

  it('is refused for a platform (escrow) transaction', async () => {
    const id = await insertOwnTransaction();
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, { headers: v2(), body: { txHash: randomHash() } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('ORCHESTRATION_TYPE_MISMATCH');
  });

  it('refuses a malformed hash (400)', async () => {
    const id = await raw();
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, { headers: v2(), body: { txHash: '0x12' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('escrow, release attest and the settlement worker, end to end', () => {
  it('escrows from the submitted hash, releases with the attester key and completes from the chain event, once', async () => {
    const id = await insertOwnTransaction();
    const created = await e.world.createEscrow(id, AMOUNT);
    const submitted = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
      headers: v2(),
      body: { transactionHash: created.transactionHash },
    });
    expect(submitted.status).toBe(200);
    expect(submitted.body.transaction).toMatchObject({
      status: 'escrowed',
      escrowAddress: getAddress(e.world.escrow),
      txHash: created.transactionHash,
    });
    // The indexer's copy of the same log is a no-op.
    await publishChain(e.nats.bus, await e.world.indexed(created));

    const receiverBefore = await e.world.balance(RECEIVER);
    const attested = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: v2() });
    expect(attested.status).toBe(200);
    expect(attested.body.transaction.status).toBe('in_review');

    const settlement = await waitFor(async () => {
      const [s] = await e.sql`select status, tx_hash from settlements where transaction_id = ${id} and kind = 'release'`;
      return s?.status === 'done' ? s : undefined;
    }, 'the release on chain');
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Released);
    expect((await e.world.balance(RECEIVER)) - receiverBefore).toBe(AMOUNT);

    const release = await e.world.publicClient.getTransactionReceipt({ hash: settlement.tx_hash });
    const releaseEvents = await e.world.indexed(release);
    await publishChain(e.nats.bus, releaseEvents);
    await publishChain(e.nats.bus, releaseEvents); // a re-publish: dropped (same message id)
    await waitFor(async () => (await statusOf(id)) === 'completed', 'completed');

    const events = await eventsOf(e.sql, id);
    expect(events.map((e) => e.type)).toEqual(['transaction.escrowed', 'transaction.completed']);
    expect(events[0]?.payload.data).toMatchObject({ escrowAddress: getAddress(e.world.escrow), txHash: created.transactionHash });
    expect(events[1]?.payload.data).toMatchObject({ transaction: { id, status: 'completed' }, txHash: settlement.tx_hash });
    const outcomes = await e.sql`select kind, outcome, source from applied_chain_messages where transaction_id = ${id} order by applied_at`;
    expect(outcomes).toEqual([
      { kind: 'escrow.created', outcome: 'applied', source: 'api' },
      { kind: 'escrow.released', outcome: 'applied', source: 'chain' },
    ]);
  });

  it('v1 submit-escrow-hash and authorize-release take an API key', async () => {
    const id = await insertOwnTransaction();
    const created = await e.world.createEscrow(id, AMOUNT, { holdDeadline: (await e.world.now()) + 3600n });
    const res = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/submit-escrow-hash`, {
      headers: key(p.apiKey),
      body: { transactionHash: created.transactionHash },
    });
    expect(res.status).toBe(200);
    const attested = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/authorize-release`, { headers: key(p.apiKey) });
    expect(attested.status).toBe(200);
    expect(attested.body.transaction.status).toBe('in_review');
    // The hold has not ended: the worker waits for it instead of sending a release that would revert.
    const [s] = await waitFor(async () => {
      const rows = await e.sql`select status, attempts, next_attempt_at from settlements where transaction_id = ${id}`;
      return rows[0]?.status === 'pending' && rows[0].attempts === 0 ? rows : undefined;
    }, 'the release to be scheduled');
    expect(new Date(s?.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Held);
  });

  it('does not send a release the chain already made: the instruction is done without a transaction', async () => {
    const { id } = await escrowed();
    const release = await e.world.escrowCall('release', id); // the sender released it himself
    const attested = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: v2() });
    expect(attested.status).toBe(200);
    const s = await waitFor(async () => {
      const [row] = await e.sql`select status, tx_hash from settlements where transaction_id = ${id}`;
      return row?.status === 'done' ? row : undefined;
    }, 'the release instruction');
    expect(s.tx_hash).toBeNull();
    await publishChain(e.nats.bus, await e.world.indexed(release));
    await waitFor(async () => (await statusOf(id)) === 'completed', 'completed');
    expect((await eventsOf(e.sql, id)).map((e) => e.type)).toEqual(['transaction.escrowed', 'transaction.completed']);
  });

  it('a repeat of release attest by the same platform answers 200 with the transaction as it is (v2 and v1), and nothing is done twice', async () => {
    const { id } = await escrowed();
    const first = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: v2() });
    expect(first.status).toBe(200);
    const again = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: v2() });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, transaction: { id, status: 'in_review' } });
    expect(again.body.message).toContain('already attested');

    const settlement = await waitFor(async () => {
      const [row] = await e.sql`select status, tx_hash from settlements where transaction_id = ${id}`;
      return row?.status === 'done' ? row : undefined;
    }, 'the release on chain');
    await publishChain(e.nats.bus, await e.world.indexed(await e.world.publicClient.getTransactionReceipt({ hash: settlement.tx_hash })));
    await waitFor(async () => (await statusOf(id)) === 'completed', 'completed');

    const afterCompletion = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/authorize-release`, { headers: key(p.apiKey) });
    expect(afterCompletion.status).toBe(200);
    expect(afterCompletion.body.transaction.status).toBe('completed');
    // A conflicting request is still refused.
    const refund = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/refund`, { headers: v2(), body: {} });
    expect(refund.status).toBe(409);
    expect(refund.body.error.code).toBe('INVALID_STATE_TRANSITION');

    expect((await e.sql`select kind from settlements where transaction_id = ${id}`).map((r) => r.kind)).toEqual(['release']);
    const moves =
      await e.sql`select action from transaction_transitions where transaction_id = ${id} and from_status is not null order by seq`;
    expect(moves.map((m) => m.action)).toEqual(['lock_escrow', 'attest_release', 'release']);
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed', 'transaction.completed']);
  });

  it('release attest of a transaction the chain completed without this platform attesting is still 409', async () => {
    const { id } = await escrowed();
    await publishChain(e.nats.bus, await e.world.indexed(await e.world.escrowCall('release', id))); // the sender released it himself
    await waitFor(async () => (await statusOf(id)) === 'completed', 'completed');
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: v2() });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { status: 'completed' } });
    expect((await e.sql`select 1 from settlements where transaction_id = ${id}`).length).toBe(0);
  });

  it('refuses an escrow whose receiver differs (400) and changes nothing', async () => {
    const id = await insertOwnTransaction();
    const created = await e.world.createEscrow(id, AMOUNT, { receiver: STRANGER });
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
      headers: v2(),
      body: { transactionHash: created.transactionHash },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'CHAIN_RECEIPT_MISMATCH', details: { reason: 'terms_mismatch', fields: ['receiver'] } });
    expect(await statusOf(id)).toBe('pending');
    expect(await eventsOf(e.sql, id)).toEqual([]);
  });

  it('refuses a hash that escrowed another transaction (400)', async () => {
    const { receipt } = await escrowed();
    const id = await insertOwnTransaction();
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
      headers: v2(),
      body: { transactionHash: receipt.transactionHash },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.reason).toBe('no_escrow_for_transaction');
  });

  it('refuses release attest of a transaction not escrowed (409)', async () => {
    const id = await insertOwnTransaction();
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: v2() });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await e.sql`select * from settlements where transaction_id = ${id}`).length).toBe(0);
  });
});

describe('early release attest', () => {
  it('records each party, verified on chain when its hash is given (v2 and both v1 paths)', async () => {
    const { id } = await escrowed({ holdDeadline: (await e.world.now()) + 3600n });
    const attest = await e.world.escrowCall('attestEarlyRelease', id, 'sender');
    const wrong = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release-early/attest`, {
      headers: v2(),
      body: { party: 'receiver', txHash: attest.transactionHash },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.reason).toBe('no_attestation');

    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release-early/attest`, {
      headers: v2(),
      body: { party: 'sender', txHash: attest.transactionHash },
    });
    expect(res.status).toBe(200);
    expect(res.body.earlyRelease).toEqual({ senderAttested: true, receiverAttested: false });
    const v1 = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/release-early/authorize`, {
      headers: key(p.apiKey),
      body: { party: 'receiver' },
    });
    expect(v1.status).toBe(200);
    expect(v1.body.earlyRelease).toEqual({ senderAttested: true, receiverAttested: true });
    const rows = await e.sql`select party, verified from early_release_attestations where transaction_id = ${id} order by party`;
    expect(rows).toEqual([
      { party: 'receiver', verified: false },
      { party: 'sender', verified: true },
    ]);
    const alias = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/release-early/attest`, {
      headers: key(p.apiKey),
      body: { party: 'receiver' },
    });
    expect(alias.status).toBe(200);
    expect(await statusOf(id)).toBe('escrowed');
  });
});

describe('rescind', () => {
  it('rescinds at once with the sender rescind hash (v2), with the reason on transaction.rescinded', async () => {
    const { id } = await escrowed({ holdDeadline: (await e.world.now()) + 3600n });
    const senderBefore = await e.world.balance(SENDER);
    const onchain = await e.world.escrowCall('rescind', id);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/rescind`, {
      headers: v2(),
      body: { reason: 'changed my mind', txHash: onchain.transactionHash },
    });
    expect(res.status).toBe(200);
    expect(res.body.transaction).toMatchObject({ status: 'rescinded', txHash: onchain.transactionHash });
    expect((await e.world.balance(SENDER)) - senderBefore).toBe(AMOUNT);
    const events = await eventsOf(e.sql, id);
    expect(events.map((e) => e.type)).toEqual(['transaction.escrowed', 'transaction.rescinded']);
    expect(events[1]?.payload.data).toMatchObject({ reason: 'changed my mind', txHash: onchain.transactionHash });
  });

  it('records a request without a hash (202); the chain event then rescinds with its reason (v1)', async () => {
    const { id } = await escrowed({ holdDeadline: (await e.world.now()) + 3600n });
    const res = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/rescind`, {
      headers: key(p.apiKey),
      body: { reason: 'wrong receiver' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ success: true, transaction: { status: 'escrowed' } });
    const onchain = await e.world.escrowCall('rescind', id);
    await publishChain(e.nats.bus, await e.world.indexed(onchain));
    await waitFor(async () => (await statusOf(id)) === 'rescinded', 'rescinded');
    const events = await eventsOf(e.sql, id);
    expect(events[1]?.payload.data).toMatchObject({ reason: 'wrong receiver', txHash: onchain.transactionHash });
  });

  it('refuses after the hold deadline with HOLD_PERIOD_ENDED and changes nothing', async () => {
    const id = await insertOwnTransaction({ status: 'escrowed', holdDeadline: new Date(Date.now() - 60_000).toISOString() });
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/rescind`, { headers: v2(), body: {} });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('HOLD_PERIOD_ENDED');
    expect(await statusOf(id)).toBe('escrowed');
    expect((await e.sql`select * from rescind_requests where transaction_id = ${id}`).length).toBe(0);
  });

  it('requires a reason when the rescind rules say so, and refuses when they do not allow it', async () => {
    const needsReason = await insertOwnTransaction({ status: 'escrowed', rescindPolicy: { allowed: true, requiresReason: true } });
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${needsReason}/rescind`, { headers: v2(), body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const notAllowed = await insertOwnTransaction({ status: 'escrowed', rescindPolicy: { allowed: false } });
    const refused = await call(e.svc.url, 'POST', `/api/v2/transactions/${notAllowed}/rescind`, { headers: v2(), body: { reason: 'x' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('RESCIND_NOT_ALLOWED');
  });
});

describe('refund', () => {
  it('refunds now (v2) and the worker returns the funds on chain; the chain event is then a no-op', async () => {
    const { id } = await escrowed({ holdDeadline: (await e.world.now()) + 3600n });
    const senderBefore = await e.world.balance(SENDER);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/refund`, { headers: v2(), body: { reason: 'out of stock' } });
    expect(res.status).toBe(200);
    expect(res.body.transaction.status).toBe('refunded');
    const settlement = await waitFor(async () => {
      const [s] = await e.sql`select status, tx_hash, refund_bps from settlements where transaction_id = ${id}`;
      return s?.status === 'done' ? s : undefined;
    }, 'the refund on chain');
    expect(settlement.refund_bps).toBe(10_000);
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Refunded);
    expect((await e.world.balance(SENDER)) - senderBefore).toBe(AMOUNT);

    const events = await e.world.indexed(await e.world.publicClient.getTransactionReceipt({ hash: settlement.tx_hash }));
    await publishChain(e.nats.bus, events);
    await waitFor(
      async () => (await e.sql`select outcome from applied_chain_messages where kind = 'escrow.refunded' and transaction_id = ${id}`)[0],
      'the refund event',
    );
    const [applied] = await e.sql`select outcome from applied_chain_messages where kind = 'escrow.refunded' and transaction_id = ${id}`;
    expect(applied?.outcome).toBe('noop');
    const outbox = await eventsOf(e.sql, id);
    expect(outbox.map((e) => e.type)).toEqual(['transaction.escrowed', 'transaction.refunded']);
    expect(outbox[1]?.payload.data).toMatchObject({ reason: 'out of stock' });
  });

  it('takes the v1 path with an API key holding cancel:transactions', async () => {
    const { id } = await escrowed();
    const res = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/refund`, { headers: key(p.apiKey) });
    expect(res.status).toBe(200);
    await waitFor(async () => (await e.world.escrowStatus(id)) === EscrowStatus.Refunded, 'the refund on chain');
  });

  it('the worker records a refund the chain can no longer make as superseded; the release event is a conflict', async () => {
    const { id } = await escrowed();
    // The sender pays the receiver on chain, then the platform refunds before payments saw the release.
    const release = await e.world.escrowCall('release', id);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/refund`, { headers: v2(), body: {} });
    expect(res.status).toBe(200);
    const s = await waitFor(async () => {
      const [row] = await e.sql`select status, tx_hash, last_error from settlements where transaction_id = ${id}`;
      return row?.status === 'superseded' ? row : undefined;
    }, 'the superseded refund');
    expect(s.tx_hash).toBeNull();
    const [outcome] = await Promise.all([
      waitFor(
        async () => (await e.sql`select outcome from applied_chain_messages where transaction_id = ${id} and kind = 'escrow.released'`)[0],
        'release',
      ),
      publishChain(e.nats.bus, await e.world.indexed(release)),
    ]);
    expect(outcome.outcome).toBe('conflict');
    expect(await statusOf(id)).toBe('refunded');
  });

  it('a repeat of the refund by the same platform answers 200 with the transaction as it is (v2 and v1); one refund, one instruction', async () => {
    const { id } = await escrowed({ holdDeadline: (await e.world.now()) + 3600n });
    const first = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/refund`, { headers: v2(), body: { reason: 'out of stock' } });
    expect(first.status).toBe(200);
    // Being refunded (the instruction may not have reached the chain yet) and once refunded on chain: the same answer.
    const again = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/refund`, { headers: v2(), body: { reason: 'out of stock' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, transaction: { id, status: 'refunded' } });
    expect(again.body.message).toContain('already made');
    await waitFor(async () => (await e.world.escrowStatus(id)) === EscrowStatus.Refunded, 'the refund on chain');
    const v1 = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/refund`, { headers: key(p.apiKey) });
    expect(v1.status).toBe(200);
    expect(v1.body.transaction.status).toBe('refunded');
    // A conflicting request is still refused.
    const attest = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: v2() });
    expect(attest.status).toBe(409);
    expect(attest.body.error.code).toBe('INVALID_STATE_TRANSITION');

    expect((await e.sql`select kind, refund_bps from settlements where transaction_id = ${id}`).length).toBe(1);
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed', 'transaction.refunded']);
  });

  it('refuses a pending transaction (409) and writes no instruction', async () => {
    const id = await insertOwnTransaction();
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/refund`, { headers: v2(), body: {} });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await e.sql`select * from settlements where transaction_id = ${id}`).length).toBe(0);
  });
});

describe('security of every operation', () => {
  const OPS: { v2: string; v1: string; body: Record<string, unknown> }[] = [
    { v2: 'hash', v1: 'submit-hash', body: { txHash: randomHash() } },
    { v2: 'escrow-hash', v1: 'submit-escrow-hash', body: { transactionHash: randomHash() } },
    { v2: 'release/attest', v1: 'authorize-release', body: {} },
    { v2: 'release-early/attest', v1: 'release-early/authorize', body: { party: 'sender' } },
    { v2: 'rescind', v1: 'rescind', body: { reason: 'x' } },
    { v2: 'refund', v1: 'refund', body: {} },
  ];
  let id: string;
  beforeAll(async () => {
    id = await insertOwnTransaction({ status: 'escrowed' });
  });

  for (const op of OPS) {
    it(`${op.v2}: 401 without a credential, 403 without the scope, 404 for another platform; nothing changes`, async () => {
      const path = `/api/v2/transactions/${id}/${op.v2}`;
      const none = await call(e.svc.url, 'POST', path, { body: op.body });
      expect(none.status).toBe(401);
      const weak = await call(e.svc.url, 'POST', path, { headers: bearer(p.readOnly), body: op.body });
      expect(weak.status).toBe(403);
      expect(weak.body.error.code).toBe('INSUFFICIENT_SCOPE');
      const apiKeyOnV2 = await call(e.svc.url, 'POST', path, { headers: key(p.apiKey), body: op.body });
      expect(apiKeyOnV2.status).toBe(401);
      const foreign = await call(e.svc.url, 'POST', path, { headers: bearer(other.token), body: op.body });
      expect(foreign.status).toBe(404);
      const foreignV1 = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/${op.v1}`, { headers: key(other.apiKey), body: op.body });
      expect(foreignV1.status).toBe(404);
      expect(await statusOf(id)).toBe('escrowed');
      expect(await eventsOf(e.sql, id)).toEqual([]);
    });
  }
});
