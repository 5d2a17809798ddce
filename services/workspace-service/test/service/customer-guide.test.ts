import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureLocalContracts, escrowContractsEntry, localDeployerAccount, tokenContractsEntry } from '@holdfast/escrow';
import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { createPublicClient, createWalletClient, http } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { evmChain } from '../../src/modules/wallets/common/chains.js';
import { buildWorld, createWorkspace, type Harness, type Json, startHarness } from '../support/harness.js';

// docs/customer-guide.md, step by step, on a local chain set up as ./scripts/start sets it up
// (MockUSDC and the escrow deployed by anvil's account #9): the curl steps with the guide's bodies,
// and the guide's two scripts run exactly as written there.
const run = promisify(execFile);
const serviceDir = fileURLToPath(new URL('../..', import.meta.url));
let anvil: Anvil;
let h: Harness;
let scripts: Record<string, string>;
let scriptDir: string;

/** The guide's ```js blocks, by the file name on their first line. */
async function guideScripts(): Promise<Record<string, string>> {
  const guide = await readFile(fileURLToPath(new URL('../../../../docs/customer-guide.md', import.meta.url)), 'utf8');
  const blocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return Object.fromEntries(blocks.map((code) => [/^\/\/ ([\w-]+\.mjs)/.exec(code)?.[1] ?? 'unnamed', code]));
}

async function runScript(name: string, env: Record<string, string>): Promise<string> {
  const file = join(scriptDir, name);
  await writeFile(file, scripts[name] as string);
  const { stdout } = await run(process.execPath, [file], { env: { ...process.env, ...env }, cwd: serviceDir });
  return stdout.trim();
}

beforeAll(async () => {
  anvil = await startAnvil();
  const transport = http(anvil.rpcUrl);
  const chain = evmChain('base-sepolia', anvil.rpcUrl);
  const { contracts } = await ensureLocalContracts({
    publicClient: createPublicClient({ chain, transport }),
    walletClient: createWalletClient({ account: localDeployerAccount(), chain, transport }),
  });
  h = await startHarness({
    CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}`,
    ESCROW_CONTRACTS: escrowContractsEntry('base-sepolia', contracts.escrow),
    TOKEN_CONTRACTS: tokenContractsEntry('base-sepolia', 'MockUSDC', contracts.mockUsdc),
  });
  scripts = await guideScripts();
  // Inside the service's folder, where `viem` resolves, as the guide says.
  scriptDir = await mkdtemp(join(serviceDir, '.guide-'));
});
afterAll(async () => {
  if (scriptDir) await rm(scriptDir, { recursive: true, force: true });
  await h?.stop();
  await anvil?.stop();
});

it('takes a customer from registering to a linked wallet with its balance on the local chain', async () => {
  expect(Object.keys(scripts).sort()).toEqual(['fund-wallet.mjs', 'link-wallet.mjs']);
  const world = await buildWorld(h);
  const workspace = (await createWorkspace(h, world.superAdmin.token, 'Acme Payments')).slug;
  expect(workspace).toBe('acme-payments');
  const auth = (what: string) => `/api/v1/workspaces/${workspace}/customers/auth/${what}`;

  // 1. Register.
  const registered = await h.call('POST', auth('register'), {
    body: { email: 'grace@buyer.example', password: 'Buyer-Passw0rd!', firstName: 'Grace', lastName: 'Hopper' },
  });
  expect(registered.status, registered.text).toBe(201);
  expect(registered.body.data.customer).toMatchObject({ email: 'grace@buyer.example', walletAddress: null, status: 'active' });

  // 2. Log in again, refresh.
  const login = await h.call('POST', auth('login'), { body: { email: 'grace@buyer.example', password: 'Buyer-Passw0rd!' } });
  expect(login.status).toBe(200);
  const refreshed = await h.call('POST', auth('refresh'), { body: { refreshToken: login.body.data.refreshToken } });
  expect(refreshed.status).toBe(200);
  const token = refreshed.body.data.accessToken as string;
  const refreshToken = refreshed.body.data.refreshToken as string;

  // 3. Me: no wallet yet.
  expect((await h.call('GET', auth('me'), { token })).body.data).toMatchObject({ walletAddress: null, walletLinkedAt: null });

  // 4. Link a wallet with the guide's script.
  const linked = JSON.parse(await runScript('link-wallet.mjs', { WS: h.url, WORKSPACE: workspace, CTOKEN: token })) as Json;
  expect(linked).toMatchObject({
    privateKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    customerId: registered.body.data.customer.id,
    walletAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    chainId: 84532,
    source: 'siwe',
  });
  const me = await h.call('GET', auth('me'), { token });
  expect(me.body.data).toMatchObject({ walletAddress: linked.walletAddress, walletLinkedAt: linked.walletLinkedAt });

  // 5. Fund it on the local chain with the guide's script (its default MockUSDC address is the local one).
  expect(await runScript('fund-wallet.mjs', { RPC: anvil.rpcUrl, WALLET: linked.walletAddress })).toBe(`funded ${linked.walletAddress}`);

  // 6. The balance.
  const balances = await h.call('GET', auth('wallet-balances'), { token });
  expect(balances.status).toBe(200);
  expect(balances.body.data).toEqual({
    balances: [
      {
        address: linked.walletAddress,
        network: 'base-sepolia',
        nativeBalance: '1',
        nativeSymbol: 'ETH',
        tokens: [{ symbol: 'MockUSDC', balance: '250', contractAddress: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35' }],
      },
    ],
    warnings: [],
  });
  const record = await h.call('GET', `/api/v1/customers/${registered.body.data.customer.id}`, { token: world.superAdmin.token });
  expect(record.body.data.walletAddress).toBe(linked.walletAddress);

  // 7. Log out.
  expect((await h.call('POST', auth('logout'), { body: { refreshToken } })).status).toBe(200);
  expect((await h.call('POST', auth('refresh'), { body: { refreshToken } })).status).toBe(401);
});
