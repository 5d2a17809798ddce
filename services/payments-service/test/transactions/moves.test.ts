import { uuidv7 } from '@holdfast/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransactionMoves } from '../../src/modules/transactions/moves.js';
import { createTransactionsRepository } from '../../src/modules/transactions/repository.js';
import { createTestDatabase, type TestDatabase, testSql } from '../support/harness.js';

let db: TestDatabase;
let sql: ReturnType<typeof testSql>;
const platformId = uuidv7();
const moves = createTransactionMoves({ repository: createTransactionsRepository() });

async function newTransaction(status = 'pending') {
  const id = uuidv7();
  await sql`insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network, orchestration_type)
    values (${id}, ${platformId}, ${status}, '10.5', 'USDC', '0xaaa', '0xbbb', 'base-sepolia', 'platform')`;
  return id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  sql = testSql(db);
  await sql`insert into platforms (id, name, scopes) values (${platformId}, 'moves', ${['read:transactions']})`;
});
afterAll(async () => {
  await sql.end();
  await db.drop();
});

describe('transaction moves', () => {
  it('writes the status, the transition and the event in one transaction', async () => {
    const id = await newTransaction();
    const out = await sql.begin((tx) =>
      moves.move(tx, { transactionId: id, action: 'lock_escrow', actor: 'test', patch: { txHash: '0x01', escrowAddress: '0xE5' } }),
    );
    expect(out.after).toMatchObject({ status: 'escrowed', txHash: '0x01', escrowAddress: '0xE5', version: 2 });
    const [event] = await sql<
      { type: string; payload: Record<string, unknown> }[]
    >`select type, payload from outbox where id = ${out.event!.id}`;
    expect(event).toMatchObject({
      type: 'transaction.escrowed',
      payload: { platformId, data: { transaction: { id, status: 'escrowed' }, escrowAddress: '0xE5', txHash: '0x01' } },
    });
    const transitions = await sql`select from_status, to_status, action from transaction_transitions where transaction_id = ${id}`;
    expect(transitions).toEqual([{ from_status: 'pending', to_status: 'escrowed', action: 'lock_escrow' }]);
  });

  it('refuses an illegal move with INVALID_STATE_TRANSITION and changes nothing', async () => {
    const id = await newTransaction('completed');
    await expect(sql.begin((tx) => moves.move(tx, { transactionId: id, action: 'refund', actor: 'test' }))).rejects.toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
    });
    const [row] = await sql`select status, version from transactions where id = ${id}`;
    expect(row).toEqual({ status: 'completed', version: 1 });
  });

  it('answers NOT_FOUND for another platform', async () => {
    const id = await newTransaction();
    await expect(
      sql.begin((tx) => moves.move(tx, { transactionId: id, action: 'lock_escrow', actor: 'test', platformId: uuidv7() })),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lets exactly one of two concurrent conflicting moves win, with one event', async () => {
    const id = await newTransaction('escrowed');
    const results = await Promise.allSettled([
      sql.begin((tx) => moves.move(tx, { transactionId: id, action: 'rescind', actor: 'a' })),
      sql.begin((tx) => moves.move(tx, { transactionId: id, action: 'release', actor: 'b' })),
      sql.begin((tx) => moves.move(tx, { transactionId: id, action: 'refund', actor: 'c' })),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const events = await sql`select type from outbox where payload->'data'->'transaction'->>'id' = ${id}`;
    expect(events).toHaveLength(1);
    const [row] = await sql`select version from transactions where id = ${id}`;
    expect(row?.version).toBe(2);
  });
});
