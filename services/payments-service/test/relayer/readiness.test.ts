import { fileFixture, readinessOf } from '@holdfast/test-fixtures';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformWithCredentials, RECEIVER, startChainPaymentsEnv } from '../support/chain.js';
import { bearer, call } from '../support/harness.js';
import { authorizationBody, createFor, newPayer, RELAYER } from '../support/relayer.js';

// A relayer key without ETH: /health/ready says it cannot pay, /metrics shows its balance, and a
// relay is refused (503) with nothing sent. The local default relayer (anvil #6) is funded.

const unfunded = generatePrivateKey();
const UNFUNDED = privateKeyToAccount(unfunded).address;
let p: Awaited<ReturnType<typeof platformWithCredentials>>;
const e = fileFixture(() => startChainPaymentsEnv({ RELAYER_PRIVATE_KEYS: `base-sepolia=${unfunded}` }));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'Unfunded relayer');
}, 60_000);

describe('the relayer that cannot pay', () => {
  it('/health/ready fails on relayer:<network>, naming the balance', async () => {
    const ready = await readinessOf(e.svc.url);
    expect(ready.status).toBe(503);
    expect(ready.body.failing).toEqual(['relayer:base-sepolia']);
    expect(ready.body.checks['relayer:base-sepolia']).toMatch(new RegExp(`${UNFUNDED} holds 0 wei, below RELAYER_MIN_BALANCE_WEI`));
  });

  it('/metrics has the balance of the relayer of each network', async () => {
    const text = await (await fetch(`${e.svc.url}/metrics`)).text();
    expect(text).toContain(`payments_relayer_balance_wei{network="base-sepolia",address="${UNFUNDED}",service="payments-service"} 0`);
    expect(text).not.toContain(RELAYER);
  });

  it('refuses a relay with 503 CONTRACT_NOT_AVAILABLE relayer_unfunded, nothing sent', async () => {
    const payer = newPayer();
    await e.world.mint(payer.address, 12_500_000n);
    const created = await createFor(e.svc.url, p.token, payer.address, RECEIVER);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${created.id}/escrow-authorization`, {
      headers: bearer(p.token),
      body: await authorizationBody(e.world, payer, created),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'CONTRACT_NOT_AVAILABLE', details: { reason: 'relayer_unfunded' } });
    expect(await e.world.publicClient.getTransactionCount({ address: UNFUNDED, blockTag: 'pending' })).toBe(0);
    expect(await e.sql`select 1 from relayed_locks`).toHaveLength(0);
  });
});
