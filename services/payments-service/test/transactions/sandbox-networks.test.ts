import { randomUUID } from 'node:crypto';
import { PAYMENTS_COMMANDS, WORKSPACE_TRANSACTION_COMMANDS } from '@holdfast/contracts';
import { sendCommand } from '@holdfast/messaging';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, key, type Loose, PRODUCTION_ENV, startPaymentsEnv, tokenFor } from '../support/harness.js';
import { address, count, newTenant, type Tenant } from '../support/transactions.js';

// Issue 28 item 3: a sandbox credential (a platform made by issueSandboxCredentials, `sandbox`)
// moves money on test networks only. Outside production every mainnet name is coerced to its
// testnet, so the rule bites in production, where nothing is coerced: there a sandbox platform's
// creation on a mainnet is refused (403, nothing written), whichever way it arrives.

const prod = fileFixture(() => startPaymentsEnv(PRODUCTION_ENV));

let sandbox: { workspaceId: string; platformId: string; apiKey: string; token: string };
let live: Tenant;

beforeAll(async () => {
  const workspaceId = randomUUID();
  const cred = await sendCommand(prod.nats.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId });
  sandbox = { workspaceId, platformId: cred.platformId, apiKey: cred.apiKey, token: await tokenFor(prod.svc.url, cred.oauthClient) };
  live = await newTenant(prod);
});

const forbidden = (network: string) => ({
  code: 'FORBIDDEN',
  message: expect.stringMatching(/sandbox credential moves money on test networks only/),
  details: expect.objectContaining({ network, reason: 'sandbox_mainnet' }),
});

async function rowsOf(platformId: string) {
  const [row] = await prod.sql`select
      (select count(*)::int from transactions where platform_id = ${platformId}) as transactions,
      (select count(*)::int from batches where platform_id = ${platformId}) as batches`;
  return row;
}

describe('a sandbox platform in production', () => {
  it('is refused a mainnet transaction on v2 and v1 (403), nothing written', async () => {
    const before = await rowsOf(sandbox.platformId);
    const v2 = (body: Loose) => call(prod.svc.url, 'POST', '/api/v2/transactions', { headers: bearer(sandbox.token), body });
    const byDefault = await v2({ fromAddress: address(), toAddress: address(), amount: 1 });
    expect(byDefault.status).toBe(403);
    expect(byDefault.body.error).toMatchObject(forbidden('base'));
    const named = await v2({ fromAddress: address(), toAddress: address(), amount: 1, blockchainNetwork: 'optimism' });
    expect(named.status).toBe(403);
    expect(named.body.error).toMatchObject({ ...forbidden('optimism'), details: expect.objectContaining({ field: 'blockchainNetwork' }) });
    const v1 = await call(prod.svc.url, 'POST', '/api/v1/transactions', {
      headers: key(sandbox.apiKey),
      body: { fromAddress: address(), toAddress: address(), amount: 1, blockchainNetwork: 'ethereum' },
    });
    expect(v1.status).toBe(403);
    expect(v1.body.error).toMatchObject(forbidden('ethereum'));
    // A testnet is still what production refuses for everyone.
    const testnet = await v2({ fromAddress: address(), toAddress: address(), amount: 1, blockchainNetwork: 'base-sepolia' });
    expect(testnet.body.error.code).toBe('TESTNET_NOT_ALLOWED_IN_PRODUCTION');
    expect(await rowsOf(sandbox.platformId)).toEqual(before);
  });

  it('is refused a mainnet batch and a mainnet quote', async () => {
    const before = await rowsOf(sandbox.platformId);
    const batch = await call(prod.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(sandbox.token),
      body: { fromAddress: address(), legs: [{ toAddress: address(), amount: 1 }], blockchainNetwork: 'base' },
    });
    expect(batch.status).toBe(403);
    expect(batch.body.error).toMatchObject(forbidden('base'));
    const quotesBefore = await count(prod, 'quotes');
    const quote = await call(prod.svc.url, 'POST', '/api/v2/transactions/quote', {
      headers: bearer(sandbox.token),
      body: { amount: 1, currency: 'USDC', blockchainNetwork: 'arbitrum' },
    });
    expect(quote.status).toBe(403);
    expect(quote.body.error).toMatchObject(forbidden('arbitrum'));
    expect(await count(prod, 'quotes')).toBe(quotesBefore);
    expect(await rowsOf(sandbox.platformId)).toEqual(before);
  });

  it("is refused a mainnet transaction forwarded by the Workspace API (the workspace's platform)", async () => {
    const before = await rowsOf(sandbox.platformId);
    await expect(
      sendCommand(prod.nats.bus, WORKSPACE_TRANSACTION_COMMANDS.create, {
        workspaceId: sandbox.workspaceId,
        platformId: sandbox.platformId,
        transaction: {
          fromAddress: address(),
          toAddress: address(),
          amount: '1',
          blockchainNetwork: 'base',
          currency: 'USDC',
          orchestrationType: 'platform',
        },
      }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', details: expect.objectContaining({ field: 'network', reason: 'sandbox_mainnet' }) });
    expect(await rowsOf(sandbox.platformId)).toEqual(before);
  });

  it('leaves a production (non-sandbox) platform on its mainnets', async () => {
    const made = await call(prod.svc.url, 'POST', '/api/v2/transactions', {
      headers: bearer(live.token),
      body: { fromAddress: address(), toAddress: address(), amount: 1, blockchainNetwork: 'base' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ blockchainNetwork: 'base', chainId: 8453 });
  });
});
