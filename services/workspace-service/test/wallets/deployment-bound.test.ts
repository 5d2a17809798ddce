import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildWorld, type Harness, startHarness, type World } from '../support/harness.js';

// Issue 13 item 7: the deployer pays every dedicated escrow's gas, so an ADMIN that deploys,
// deprecates and deploys again could drain it. CONTRACT_DEPLOYMENTS_PER_DAY bounds the deployments
// a workspace starts in any 24 hours (docs/wallets.md); another workspace is not affected.

let h: Harness;
let anvil: Anvil;
let world: World;

beforeAll(async () => {
  anvil = await startAnvil();
  h = await startHarness({ CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}`, CONTRACT_DEPLOYMENTS_PER_DAY: '2' });
  world = await buildWorld(h);
});
afterAll(async () => {
  await h?.stop();
  await anvil?.stop();
});

it('refuses the deployment past the daily bound with 429 DEPLOYMENT_LIMIT_EXCEEDED and Retry-After, deploying nothing', async () => {
  const base = `/api/v1/workspaces/${world.w1.id}/contracts`;
  const token = world.adminW1.token;
  for (let i = 0; i < 2; i += 1) {
    const deployed = await h.call('POST', `${base}/base-sepolia`, { token });
    expect(deployed.status, deployed.text).toBe(201);
    const deprecated = await h.call('POST', `${base}/deployments/${deployed.body.data.deploymentId}/deprecate`, { token });
    expect(deprecated.status, deprecated.text).toBe(200);
  }
  const nonceBefore = await chainHeight();
  const refused = await h.call('POST', `${base}/base-sepolia`, { token });
  expect(refused.status, refused.text).toBe(429);
  expect(refused.body.error).toMatchObject({
    code: 'DEPLOYMENT_LIMIT_EXCEEDED',
    details: { limit: 2, windowSeconds: 86400 },
  });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(86000);
  const [rows] = await h.sql<
    { n: number }[]
  >`select count(*)::int as n from workspace.contract_deployments where workspace_id = ${world.w1.id} and not is_shared`;
  expect(rows?.n).toBe(2);
  expect(await chainHeight()).toBe(nonceBefore);

  // Another workspace deploys as before.
  const other = await h.call('POST', `/api/v1/workspaces/${world.w2.id}/contracts/base-sepolia`, { token: world.adminW2.token });
  expect(other.status, other.text).toBe(201);
});

/** The chain height: anvil mines one block per transaction, so a deployment moves it. */
async function chainHeight(): Promise<number> {
  const res = await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  return Number.parseInt(((await res.json()) as { result: string }).result, 16);
}
