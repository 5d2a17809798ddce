import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildWorld,
  type Harness,
  type Json,
  PASSWORD,
  setWorkspaceStatus,
  startHarness,
  uniqueEmail,
  type World,
} from '../support/harness.js';
import { newTenant } from '../support/integrations.js';
import { seedTransaction } from '../support/transactions.js';
import { startCustodyA } from '../support/vendors.js';

// Issue 13 item 1 (docs/workspace-transactions.md, "Which addresses count"): a self-signed-up
// ADMIN points a CUSTODY_A vendor at a server of its own that answers a victim's address, then
// lists its workspace's transactions. It must see none of the victim's.

let h: Harness;
let world: World;
let vendor: Awaited<ReturnType<typeof startCustodyA>>;

beforeAll(async () => {
  [h, vendor] = await Promise.all([startHarness({}, { peers: true }), startCustodyA()]);
  world = await buildWorld(h);
});
afterAll(async () => {
  await h?.stop();
  await vendor?.stop();
});

async function ok(what: string, answer: Promise<{ status: number; text: string; body: Json }>): Promise<Json> {
  const res = await answer;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body.data;
}

const ids = (list: Json[]) => list.map((t: { id: string }) => t.id).sort();

/** A stranger signs up, verifies, logs in and creates a workspace, which an operator approves: an ADMIN nobody vetted closely. */
async function selfSignedUpAdmin() {
  const email = uniqueEmail('attacker');
  const signup = await ok(
    'signup',
    h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Mallory', lastName: 'M' } }),
  );
  await ok('verify', h.call('POST', '/auth/verify-code', { body: { email, code: signup.verificationCode } }));
  const { accessToken: token } = await h.login(email);
  const workspace = await ok('workspace', h.call('POST', '/api/v1/workspaces', { token, body: { name: `Mallory ${Date.now()}`, email } }));
  await setWorkspaceStatus(h, world.superAdmin.token, workspace.id, 'active');
  const sandbox = await ok('sandbox', h.call('POST', `/api/v1/workspaces/${workspace.id}/sandbox-credentials`, { token }));
  return { token, workspaceId: workspace.id as string, platformId: sandbox.platformId as string };
}

describe('a CUSTODY_A address answered by a tenant-set vendor', () => {
  let victim: Awaited<ReturnType<typeof newTenant>>;
  let victimAddress: string;
  let victimPlatform: string;
  const victimTx: string[] = [];
  let metadataOnly: string;

  beforeAll(async () => {
    // The victim: a workspace with a platform and a PLATFORM account derived from its own seed
    // (an address it has proven), paid on its own platform and on a third tenant's.
    victim = await newTenant(h, world);
    victimPlatform = (await ok('sandbox', h.call('POST', `${victim.base}/sandbox-credentials`, { token: victim.admin.token }))).platformId;
    await ok(
      'provider',
      h.call('PUT', `/api/v1/workspaces/${victim.workspace.id}`, { token: world.superAdmin.token, body: { walletProvider: 'PLATFORM' } }),
    );
    const eth = { addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" };
    const accounts = await ok(
      'accounts',
      h.call('POST', `${victim.base}/wallet-accounts`, { token: victim.admin.token, body: { accounts: [eth] } }),
    );
    victimAddress = JSON.stringify(accounts).match(/0x[0-9a-fA-F]{40}/)![0];
    const third = await newTenant(h, world);
    const thirdPlatform = (await ok('sandbox', h.call('POST', `${third.base}/sandbox-credentials`, { token: third.admin.token })))
      .platformId;
    victimTx.push(
      await seedTransaction(h, { platformId: victimPlatform, toAddress: victimAddress, status: 'escrowed', amount: '900' }),
      await seedTransaction(h, { platformId: thirdPlatform, fromAddress: victimAddress.toLowerCase(), status: 'completed' }),
    );
    // Issue 28 item 5: another tenant's made-up transaction naming the victim's address only in its metadata.
    metadataOnly = await seedTransaction(h, {
      platformId: thirdPlatform,
      amount: '999999',
      metadata: { recipientWalletAddress: victimAddress },
    });
  });

  it('widens nothing: the attacker lists only its own platform, the victim still sees its transactions', async () => {
    const attacker = await selfSignedUpAdmin();
    // The attacker's "vendor" answers the victim's address for every wallet it creates.
    vendor.override = (req) =>
      req.method === 'POST' && req.url.pathname === '/v1/wallets'
        ? {
            status: 201,
            body: {
              data: {
                wallets: [
                  {
                    id: 'w-forged',
                    address: victimAddress,
                    blockchain: 'BASE-SEPOLIA',
                    walletSetId: vendor.walletSetId,
                    refId: null,
                    state: 'LIVE',
                    createDate: new Date().toISOString(),
                  },
                ],
              },
            },
          }
        : undefined;
    await ok(
      'config',
      h.call('POST', '/api/v1/wallet-provider-configs', {
        token: attacker.token,
        body: {
          workspaceId: attacker.workspaceId,
          providerType: 'CUSTODY_A',
          providerName: 'My vendor',
          config: vendor.config,
          walletSetId: vendor.walletSetId,
          isDefault: true,
        },
      }),
    );
    const customer = await ok(
      'customer',
      h.call('POST', `/api/v1/workspaces/${attacker.workspaceId}/customers`, {
        token: attacker.token,
        body: { email: uniqueEmail('straw'), firstName: 'Straw', lastName: 'Man' },
      }),
    );
    const wallet = await ok(
      'custody wallet',
      h.call('POST', `/api/v1/customers/${customer.id}/custody-a-wallet`, { token: attacker.token, body: {} }),
    );
    expect(wallet.walletAddress.toLowerCase()).toBe(victimAddress.toLowerCase());
    const own = await seedTransaction(h, { platformId: attacker.platformId, toAddress: victimAddress });

    const listed = await h.call('GET', `/api/v1/workspaces/${attacker.workspaceId}/transactions?limit=100`, { token: attacker.token });
    expect(listed.status, listed.text).toBe(200);
    expect(ids(listed.body.data.transactions)).toEqual([own]);
    expect(listed.body.data.pagination.total).toBe(1);
    for (const id of victimTx) expect(listed.text).not.toContain(id);

    // The global read with the address as a filter: still the attacker's own platform only.
    const global = await h.call('GET', `/api/v1/transactions?walletAddress=${victimAddress}`, { token: attacker.token });
    expect(global.status, global.text).toBe(200);
    expect(ids(global.body.data.data)).toEqual([own]);

    // The victim's proven address still gathers its transactions across platforms (the attacker's
    // payment to it included: it is a payment to the victim).
    const theirs = await h.call('GET', `${victim.base}/transactions?limit=100`, { token: victim.admin.token });
    expect(ids(theirs.body.data.transactions)).toEqual([...victimTx, own].sort());
    // Another platform's metadata widens nothing: the made-up 999,999 is not the victim's.
    expect(theirs.text).not.toContain(metadataOnly);
    expect(listed.text).not.toContain(metadataOnly);
  });
});
