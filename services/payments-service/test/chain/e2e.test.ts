import { EscrowStatus } from '@holdfast/escrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  call,
  createTestBus,
  createTestDatabase,
  newBootstrapKey,
  type Running,
  startPayments,
  type TestBus,
  type TestDatabase,
  testSql,
} from '../helpers.js';
import { type ChainWorld, eventsOf, platformWithCredentials, publishChain, startChain, waitFor } from './fixtures.js';

// A payment's whole life through the Payments API v2 and a real chain: created by the API, funds
// locked by the sender's own createEscrow on anvil, the CHAIN event (as the indexer publishes it)
// moving it to escrowed, the release attested by the API, paid out by the attester's worker on
// chain, and completed from the chain's release event. Each move announced exactly once, in order.

let db: TestDatabase;
let nats: TestBus;
let svc: Running;
let sql: ReturnType<typeof testSql>;
let world: ChainWorld;
let p: Awaited<ReturnType<typeof platformWithCredentials>>;
const admin = newBootstrapKey();
const LIMITS = { RATE_LIMIT_STANDARD: '10000', RATE_LIMIT_ADMIN: '10000', RATE_LIMIT_PUBLIC: '10000', RATE_LIMIT_HIGH: '10000' };

beforeAll(async () => {
  [db, nats, world] = await Promise.all([createTestDatabase(), createTestBus(), startChain()]);
  svc = await startPayments(db, nats, { PAYMENTS_BOOTSTRAP_API_KEY: admin, ...LIMITS, ...world.env });
  sql = testSql(db);
  p = await platformWithCredentials(svc.url, admin, 'End to end');
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await sql?.end();
  await Promise.all([db?.drop(), nats?.dispose(), world?.anvil.stop()]);
});

const get = async (id: string) => (await call(svc.url, 'GET', `/api/v2/transactions/${id}`, { headers: bearer(p.token) })).body;

describe('a payment through the API and the chain', () => {
  it('created -> escrowed (chain event) -> release attested -> paid by the attester -> completed', async () => {
    const sender = world.sender.account.address;
    const receiver = world.receiver.account.address;
    const created = await call(svc.url, 'POST', '/api/v2/transactions', {
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

    // The sender's wallet locks the funds under the transaction's on-chain id.
    const receiverBefore = await world.balance(receiver);
    const lock = await world.createEscrow(id, 12_500_000n, { holdDeadline: (await world.now()) + 2n });
    await publishChain(nats.bus, await world.indexed(lock));
    const escrowed = await waitFor(async () => {
      const t = await get(id);
      return t.status === 'escrowed' && t;
    }, 'escrowed');
    expect(escrowed).toMatchObject({ escrowAddress: world.escrow, txHash: lock.transactionHash });

    const attested = await call(svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: bearer(p.token) });
    expect(attested.status, JSON.stringify(attested.body)).toBe(200);
    expect(attested.body.transaction.status).toBe('in_review');

    // The worker releases with the attester key once the hold has ended.
    const settlement = await waitFor(
      async () => {
        const [s] = await sql`select status, tx_hash from settlements where transaction_id = ${id} and kind = 'release'`;
        return s?.status === 'done' && s.tx_hash && s;
      },
      'the release on chain',
      30_000,
    );
    expect(await world.escrowStatus(id)).toBe(EscrowStatus.Released);
    expect((await world.balance(receiver)) - receiverBefore).toBe(12_500_000n);

    const release = await world.publicClient.getTransactionReceipt({ hash: settlement.tx_hash });
    await publishChain(nats.bus, await world.indexed(release));
    const completed = await waitFor(async () => {
      const t = await get(id);
      return t.status === 'completed' && t;
    }, 'completed');
    expect(completed.txHash).toBe(release.transactionHash);

    const events = await eventsOf(sql, id);
    expect(events.map((e) => e.type)).toEqual(['transaction.created', 'transaction.escrowed', 'transaction.completed']);
    expect(events[1]?.payload.data).toMatchObject({ escrowAddress: world.escrow, txHash: lock.transactionHash });
    const moves = await sql`select action from transaction_transitions where transaction_id = ${id} order by seq`;
    expect(moves.map((m) => m.action)).toEqual(['create', 'lock_escrow', 'attest_release', 'release']);
  });
});
