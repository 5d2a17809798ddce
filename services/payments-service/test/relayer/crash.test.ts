import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { EscrowStatus } from '@holdfast/escrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ChainWorld, RECEIVER, waitFor } from '../support/chain.js';
import { bearer, call } from '../support/harness.js';
import { authorizationBody, createFor, newPayer, RELAYER, relayerCrashWorld, relayerNonce, testClientOf } from '../support/relayer.js';

// kill -9 of payments (a real process, its built dist/main.js) after the relay was committed and
// before its receipt: the restarted process follows the stored bytes to one lock, never a second.

const crash = relayerCrashWorld();
let world: ChainWorld;
beforeAll(() => {
  world = crash.chain();
});

describe('the relayer across a crash of payments', () => {
  it('kill -9 between submit and receipt, restart: exactly one lock, the transaction escrowed', async () => {
    const url = crash.url();
    const p = await crash.platform('Crash');
    const payer = newPayer();
    await world.mint(payer.address, 12_500_000n);
    const created = await createFor(url, p.token, payer.address, RECEIVER);
    const body = await authorizationBody(world, payer, created);
    const test = testClientOf(world);
    const nonce = await world.publicClient.getTransactionCount({ address: RELAYER, blockTag: 'latest' });

    await test.setAutomine(false);
    const res = await call(url, 'POST', `/api/v2/transactions/${created.id}/escrow-authorization`, { headers: bearer(p.token), body });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const hash = res.body.relay.txHash;
    await crash.kill();
    // As if the crash came before the broadcast: the node forgets the bytes; only the database has them.
    await test.dropTransaction({ hash });
    expect(await world.publicClient.getTransaction({ hash }).catch(() => null)).toBeNull();
    await test.setAutomine(true);

    const again = await crash.restart();
    const status = () =>
      call(again, 'GET', `/api/v2/transactions/${created.id}`, { headers: bearer(p.token) }).then((r) => r.body.status as string);
    await waitFor(async () => (await status()) === 'escrowed', 'escrowed after the restart', 60_000);

    expect(await world.publicClient.getTransactionCount({ address: RELAYER, blockTag: 'latest' })).toBe(nonce + 1);
    expect(await relayerNonce(world)).toBe(nonce + 1);
    const receipt = await world.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const created_ = await world.publicClient.getContractEvents({
      address: world.escrow,
      abi: holdfastEscrowAbi,
      eventName: 'EscrowCreated',
      args: { id: created.escrow.onchainId },
      fromBlock: 0n,
    });
    expect(created_).toHaveLength(1);
    expect(await world.escrowStatus(created.id)).toBe(EscrowStatus.Held);

    // The same signature again, to the restarted process: the same relay, nothing sent.
    const repeat = await call(again, 'POST', `/api/v2/transactions/${created.id}/escrow-authorization`, { headers: bearer(p.token), body });
    expect(repeat.status).toBe(200);
    expect(repeat.body.relay).toMatchObject({ id: res.body.relay.id, txHash: hash, status: 'mined' });
    expect(await relayerNonce(world)).toBe(nonce + 1);
    const sql = crash.sql();
    try {
      const rows = await sql`select status, tx_hash, attempts from relayed_locks where transaction_id = ${created.id}`;
      expect(rows).toEqual([{ status: 'mined', tx_hash: hash, attempts: 1 }]);
    } finally {
      await sql.end();
    }
  }, 180_000);
});
