import { createServer } from 'node:http';
import { EscrowStatus } from '@holdfast/escrow';
import { fileFixture } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  escrowedThroughApi,
  eventsOf,
  insertTransaction,
  NETWORK,
  platformWithCredentials,
  publishChain,
  RECEIVER,
  SENDER,
  startChainPaymentsEnv,
  waitFor,
} from '../support/chain.js';
import { bearer, call, NON_LOCAL_SECRETS, startPaymentsEnv } from '../support/harness.js';

// The test clock (docs/test-clock.md): POST /api/v2/test_helpers/transactions/{id}/advance_hold
// ends a held transaction's hold now, on a local deployment or for a sandbox credential. Against a
// real anvil behind a JSON-RPC relay that can refuse the clock methods, as a public chain's node does.

let refuseClock = false;
const relay = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const parsed = JSON.parse(body) as { id: number; method?: string };
  if (refuseClock && parsed.method?.startsWith('evm_')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id, error: { code: -32601, message: 'the method does not exist' } }));
    return;
  }
  try {
    const upstream = await fetch(anvilUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  } catch {
    res.writeHead(502).end();
  }
});
let anvilUrl = '';
const relayUrl = new Promise<string>((resolve) =>
  relay.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(relay.address() as { port: number }).port}`)),
);

const e = fileFixture(async () => {
  const started = await startChainPaymentsEnv({ CHAIN_RPC_URLS: `${NETWORK}=${await relayUrl}` });
  anvilUrl = started.world.anvil.rpcUrl;
  return started;
});
let p: Awaited<ReturnType<typeof platformWithCredentials>>;

beforeAll(async () => {
  p = await platformWithCredentials(e, 'Test clock');
}, 60_000);
afterAll(() => new Promise<void>((resolve) => relay.close(() => resolve())));

const advance = (id: string, token = p.token) =>
  call(e.svc.url, 'POST', `/api/v2/test_helpers/transactions/${id}/advance_hold`, { headers: bearer(token) });
/** An hour after the later of the wall clock and the chain's (an earlier test moved the chain's clock ahead). */
const hourFromNow = async () => {
  const chainNow = (await e.world.publicClient.getBlock()).timestamp;
  const wall = BigInt(Math.floor(Date.now() / 1000));
  return (chainNow > wall ? chainNow : wall) + 3600n;
};

describe('advance_hold on a local deployment', () => {
  it('ends the hold of an attested transaction: the chain clock moves, the release is carried out now, the transaction completes', async () => {
    const holdDeadline = await hourFromNow();
    const id = await escrowedThroughApi({ sql: e.sql, url: e.svc.url, world: e.world }, p, 25_500_000n, { holdDeadline });
    const attested = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: bearer(p.token) });
    expect(attested.status, JSON.stringify(attested.body)).toBe(200);
    const [queued] = await e.sql`select next_attempt_at from settlements where transaction_id = ${id} and kind = 'release'`;
    expect(new Date(queued?.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 3_000_000);

    const res = await advance(id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.transaction).toMatchObject({ id, status: 'in_review' });
    expect(res.body.message).toContain('the attested release is carried out now');
    expect(Date.parse(res.body.transaction.holdDeadline)).toBeLessThanOrEqual(Date.now());
    // The contract's clock reached the escrow's deadline.
    const block = await e.world.publicClient.getBlock({ blockTag: 'latest' });
    expect(block.timestamp).toBeGreaterThanOrEqual(holdDeadline);

    const settlement = await waitFor(
      async () => {
        const [s] = await e.sql`select status, tx_hash from settlements where transaction_id = ${id} and kind = 'release'`;
        return s?.status === 'done' && s.tx_hash && s;
      },
      'the release on chain',
      60_000,
    );
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Released);
    const release = await e.world.publicClient.getTransactionReceipt({ hash: settlement.tx_hash });
    await publishChain(e.nats.bus, await e.world.indexed(release));
    await waitFor(
      async () => (await call(e.svc.url, 'GET', `/api/v2/transactions/${id}`, { headers: bearer(p.token) })).body.status === 'completed',
      'completed',
      60_000,
    );
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toContain('transaction.completed');

    // Once settled the hold has nothing left to advance.
    const again = await advance(id);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'completed' } });
  }, 120_000);

  it('on an escrowed transaction the sender can no longer rescind, and a later attest is due at once', async () => {
    const id = await escrowedThroughApi({ sql: e.sql, url: e.svc.url, world: e.world }, p, 25_500_000n, {
      holdDeadline: await hourFromNow(),
    });
    const res = await advance(id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.transaction.status).toBe('escrowed');
    expect(res.body.message).toContain('attest the release');
    const rescind = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/rescind`, { headers: bearer(p.token), body: {} });
    expect(rescind.status).toBe(409);
    expect(rescind.body.error.code).toBe('HOLD_PERIOD_ENDED');
    // Repeated while held: the same answer, nothing moves.
    const repeated = await advance(id);
    expect(repeated.status).toBe(200);
    expect(repeated.body.transaction.status).toBe('escrowed');
    const attested = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: bearer(p.token) });
    expect(attested.status).toBe(200);
    const [queued] = await e.sql`select next_attempt_at from settlements where transaction_id = ${id} and kind = 'release'`;
    expect(new Date(queued?.next_attempt_at).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  }, 60_000);

  it('refuses a transaction that is not held (409), another platform’s or an unknown one (404), and a chain whose clock is fixed (409)', async () => {
    const pending = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER });
    const notHeld = await advance(pending);
    expect(notHeld.status).toBe(409);
    expect(notHeld.body.error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'pending' } });
    const [before] = await e.sql`select hold_deadline from transactions where id = ${pending}`;
    expect(before?.hold_deadline).toBeNull();

    const other = await platformWithCredentials(e, 'Other platform');
    const theirs = await escrowedThroughApi({ sql: e.sql, url: e.svc.url, world: e.world }, other, 25_500_000n, {
      holdDeadline: await hourFromNow(),
    });
    const refused = await advance(theirs);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('NOT_FOUND');
    expect((await advance('0193a7c4-7a00-7c1d-8e2f-3a4b5c6d7e8f')).status).toBe(404);

    refuseClock = true;
    try {
      const fixed = await advance(theirs, other.token);
      expect(fixed.status, JSON.stringify(fixed.body)).toBe(409);
      expect(fixed.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'chain_clock_fixed' } });
      const [row] = await e.sql`select hold_deadline from transactions where id = ${theirs}`;
      expect(new Date(row?.hold_deadline).getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    } finally {
      refuseClock = false;
    }
  }, 60_000);
});

describe('advance_hold outside local', () => {
  const STAGING = { ...NON_LOCAL_SECRETS, APP_ENV: 'staging' };

  it('refuses a live (not sandbox) platform with 403 live_platform and changes nothing', async () => {
    const staging = await startPaymentsEnv(STAGING);
    try {
      const live = await platformWithCredentials(staging, 'Live');
      const holdDeadline = new Date(Date.now() + 3_600_000).toISOString();
      const id = await insertTransaction(staging.sql, {
        platformId: live.platformId,
        from: SENDER,
        to: RECEIVER,
        status: 'escrowed',
        holdDeadline,
      });
      const res = await call(staging.svc.url, 'POST', `/api/v2/test_helpers/transactions/${id}/advance_hold`, {
        headers: bearer(live.token),
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'live_platform' } });
      const [row] = await staging.sql`select hold_deadline from transactions where id = ${id}`;
      expect(new Date(row?.hold_deadline).getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    } finally {
      await staging.stop();
    }
  }, 120_000);
});
