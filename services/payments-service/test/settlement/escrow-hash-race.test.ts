import { fileFixture } from '@holdfast/test-fixtures';
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
import { bearer, call } from '../support/harness.js';

// Issue 28 item 8: `escrow-hash` racing the CHAIN consumer on the same EscrowCreated deadlocked
// (the consumer took the message's row, then the transaction's; the API the other way round) and
// answered 500 although the escrow was locked. Both now take the transaction's row first, and a
// deadlock or serialization failure left over is run again inside the service.

const e = fileFixture(() => startChainPaymentsEnv());
let p: Awaited<ReturnType<typeof platformWithCredentials>>;
beforeAll(async () => {
  p = await platformWithCredentials(e, 'escrow-hash race');
}, 60_000);

describe('escrow-hash while the CHAIN consumer applies the same EscrowCreated', () => {
  it('answers 200 every time, and the transaction is escrowed once with one event', async () => {
    const rounds = 12;
    for (let round = 0; round < rounds; round++) {
      const id = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER });
      const receipt = await e.world.createEscrow(id, AMOUNT);
      const events = await e.world.indexed(receipt);
      const [answer] = await Promise.all([
        call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
          headers: bearer(p.token),
          body: { transactionHash: receipt.transactionHash },
        }),
        publishChain(e.nats.bus, events),
      ]);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.transaction).toMatchObject({ status: 'escrowed', txHash: receipt.transactionHash });
      // The consumer's copy is recorded (applied, or a no-op after the API's move).
      await waitFor(
        async () =>
          (await e.sql`select 1 from applied_chain_messages where transaction_id = ${id} and source = 'chain'`)[0] ??
          (await e.sql`select 1 from applied_chain_messages where transaction_id = ${id}`)[0],
        'the CHAIN message recorded',
      );
      expect((await eventsOf(e.sql, id)).map((x) => x.type)).toEqual(['transaction.escrowed']);
    }
  }, 120_000);
});
