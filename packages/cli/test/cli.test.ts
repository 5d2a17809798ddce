import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deployEscrow, deployMockUsdc, escrowContractsEntry, localDeployerAccount, tokenContractsEntry } from '@holdfast/escrow';
import { PaymentsClient, verifyWebhook, type WebhookEvent, WorkspaceClient } from '@holdfast/sdk';
import {
  type Anvil,
  operatorOf,
  type RunningProcesses,
  type SignedUpWorkspace,
  signUpWorkspace,
  startAnvil,
  startServiceProcesses,
} from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { createPublicClient, createWalletClient, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The holdfast binary run as a process (its built dist/main.js) against the four services running
// as processes: login, the resource commands with tables and --json, options before or after the
// command, trigger with the client scopes docs/cli.md gives (on a private anvil with the escrow
// deployed, as ./scripts/start has it), events list|resend and logs tail on real webhook
// deliveries, and listen forwarding a real transaction.created to a local receiver that verifies it.

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const main = join(packageDir, 'dist', 'main.js');
const config = mkdtempSync(join(tmpdir(), 'holdfast-cli-'));
let anvil: Anvil;
let processes: RunningProcesses;
let tenant: SignedUpWorkspace;
let paymentsUrl: string;
let workspaceUrl: string;
let usdcAddress: string;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function holdfast(...args: string[]): Promise<Ran> {
  return holdfastOn(process.env.PATH ?? '', ...args);
}

/** The binary with its own PATH (`checkout create --open` looks for xdg-open there). */
function holdfastOn(path: string, ...args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...args], { env: { PATH: path, XDG_CONFIG_HOME: config } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const address = () => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')}`;

beforeAll(async () => {
  anvil = await startAnvil();
  const transport = http(anvil.rpcUrl);
  const publicClient = createPublicClient({ transport, pollingInterval: 50 }) as PublicClient;
  const walletClient = createWalletClient({
    account: localDeployerAccount(),
    transport,
    chain: {
      id: anvil.chainId,
      name: 'local',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    },
  });
  const [usdc, escrow] = [await deployMockUsdc({ walletClient, publicClient }), await deployEscrow({ walletClient, publicClient })];
  usdcAddress = usdc.address;
  processes = await startServiceProcesses({
    services: ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'],
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
  // The client docs/cli.md tells to create, with exactly the scopes it lists.
  docsClient = await bootstrapClient('cli', docsScopes());
});

/** The scopes of the client the `curl` of docs/cli.md creates. */
function docsScopes(): string[] {
  const guide = readFileSync(join(packageDir, '..', '..', 'docs', 'cli.md'), 'utf8');
  const body = /oauth\/clients[^\n]*\\\n\s*-d '(\{[^']*\})'/.exec(guide)?.[1];
  if (!body) throw new Error('docs/cli.md has no client creation');
  return (JSON.parse(body) as { scopes: string[] }).scopes;
}

/** An OAuth client of the bootstrap platform, as the curl of docs/cli.md makes one. */
async function bootstrapClient(name: string, scopes: string[]): Promise<{ clientId: string; clientSecret: string }> {
  const made = await fetch(`${paymentsUrl}/api/v1/oauth/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': processes.env.PAYMENTS_BOOTSTRAP_API_KEY as string },
    body: JSON.stringify({ name, scopes }),
  });
  if (made.status !== 201) throw new Error(`client: ${made.status} ${await made.text()}`);
  return (await made.json()) as { clientId: string; clientSecret: string };
}

let docsClient: { clientId: string; clientSecret: string };
const docsPayments = () => new PaymentsClient({ baseUrl: paymentsUrl, ...docsClient });
afterAll(async () => {
  await processes?.stop();
  await anvil?.stop();
  rmSync(config, { recursive: true, force: true });
});

describe('holdfast --help', () => {
  it('lists every command', async () => {
    const ran = await holdfast('--help');
    expect(ran.code).toBe(0);
    for (const command of [
      'login',
      'transactions create',
      'transactions get',
      'transactions list',
      'batches create',
      'batches get',
      'batches list',
      'disputes open',
      'disputes get',
      'disputes list',
      'checkout create',
      'workspaces list',
      'events list',
      'events resend',
      'logs tail',
      'listen',
      'trigger',
    ]) {
      expect(ran.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    const usage = await holdfast('listen', '--help');
    expect(usage.stdout).toContain('--forward-to');
  });

  it('--version and -v print the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const ran = await holdfast(flag);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout.trim()).toBe(version);
    }
  });

  it('refuses an unknown option, a bad --signer-type and a bad --override with exit code 2', async () => {
    const unknown = await holdfast('transactions', 'list', '--colour');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--colour'");
    const signer = await holdfast('transactions', 'create', '--from', '0x1', '--to', '0x2', '--amount', '1', '--signer-type', 'robot');
    expect(signer.code).toBe(2);
    expect(signer.stderr).toContain('--signer-type must be one of external_wallet, custodial');
    const override = await holdfast('trigger', 'transaction.created', '--override', 'amount');
    expect(override.code).toBe(2);
    expect(override.stderr).toContain('expected [transaction:|dispute:]PATH=VALUE');
  });

  it('refuses an unknown command and a missing option with exit code 2', async () => {
    expect((await holdfast('pay')).code).toBe(2);
    const missing = await holdfast('transactions', 'create', '--from', '0x1');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--amount is required');
  });
});

describe('holdfast login', () => {
  it('stores the client credentials in a 0600 profile after checking them, and the workspace login in another', async () => {
    const ran = await holdfast(
      'login',
      '--api-url',
      paymentsUrl,
      '--client-id',
      tenant.sandbox.clientId,
      '--client-secret',
      tenant.sandbox.clientSecret,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain(`Checking the client at ${paymentsUrl}`);
    const file = join(config, 'holdfast', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toMatchObject({
      apiUrl: paymentsUrl,
      clientId: tenant.sandbox.clientId,
    });

    const ws = await holdfast(
      'login',
      '--profile',
      'ws',
      '--workspace-url',
      workspaceUrl,
      '--email',
      tenant.email,
      '--password',
      tenant.password,
    );
    expect(ws.code, ws.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.ws).toMatchObject({ workspaceUrl, email: tenant.email });
  });

  it('refuses a wrong secret and stores nothing', async () => {
    const ran = await holdfast(
      'login',
      '--profile',
      'bad',
      '--api-url',
      paymentsUrl,
      '--client-id',
      tenant.sandbox.clientId,
      '--client-secret',
      'hf_secret_no',
    );
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/Error: INVALID_CLIENT 401/);
    expect(JSON.parse(readFileSync(join(config, 'holdfast', 'config.json'), 'utf8')).profiles.bad).toBeUndefined();
  });
});

describe('resource commands', () => {
  it('transactions create, get and list, as tables and as JSON', async () => {
    const from = address();
    const created = await holdfast(
      'transactions',
      'create',
      '--from',
      from,
      '--to',
      address(),
      '--amount',
      '12.5',
      '--orchestration',
      'raw',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const tx = JSON.parse(created.stdout);
    expect(tx).toMatchObject({ status: 'pending', amount: '12.5', fromAddress: from });
    const got = await holdfast('transactions', 'get', tx.id);
    expect(got.stdout).toMatch(new RegExp(`^id\\s+${tx.id}$`, 'm'));
    expect(got.stdout).toMatch(/^status\s+pending$/m);
    const listed = await holdfast('transactions', 'list', '--from', from);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+AMOUNT/);
    expect(listed.stdout).toContain(tx.id);
    const json = await holdfast('transactions', 'list', '--from', from, '--json');
    expect(JSON.parse(json.stdout).map((t: { id: string }) => t.id)).toEqual([tx.id]);
    // The options of every command before the command words, as after them.
    const before = await holdfast('--json', '--profile', 'default', 'transactions', 'list', '--from', from);
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout).map((t: { id: string }) => t.id)).toEqual([tx.id]);
  });

  it('transactions create --signer-type sends the signer type', async () => {
    const ran = await holdfast(
      '--json',
      'transactions',
      'create',
      '--from',
      address(),
      '--to',
      address(),
      '--amount',
      '2',
      '--signer-type',
      'external_wallet',
    );
    expect(ran.code, ran.stderr).toBe(0);
    const tx = JSON.parse(ran.stdout);
    expect(tx.signerType).toBe('external_wallet');
    const client = new PaymentsClient({
      baseUrl: paymentsUrl,
      clientId: tenant.sandbox.clientId,
      clientSecret: tenant.sandbox.clientSecret,
    });
    expect((await client.transactions.get(tx.id)).signerType).toBe('external_wallet');
  });

  it('batches create and get', async () => {
    const created = await holdfast(
      'batches',
      'create',
      '--from',
      address(),
      '--leg',
      `${address()}:1`,
      '--leg',
      `${address()}:2.5`,
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const batch = JSON.parse(created.stdout);
    expect(batch.legs).toHaveLength(2);
    const got = await holdfast('batches', 'get', batch.id);
    expect(got.stdout).toContain(batch.id);
    expect(got.stdout).toMatch(/^ID\s+TOADDRESS\s+AMOUNT\s+STATUS$/m);
    const listed = await holdfast('batches', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+FROMADDRESS/);
    expect(listed.stdout).toContain(batch.id);
    const json = JSON.parse((await holdfast('--json', 'batches', 'list', '--limit', '1')).stdout);
    expect(json.map((b: { id: string }) => b.id)).toEqual([batch.id]);
  });

  it('disputes open and get, and the API refusal of a pending transaction', async () => {
    const tx = JSON.parse(
      (await holdfast('transactions', 'create', '--from', address(), '--to', address(), '--amount', '3', '--json')).stdout,
    );
    const refused = await holdfast('disputes', 'open', '--transaction', tx.id, '--reason', 'not delivered');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Error: [A-Z_]+ 4\d\d: .*\(request req_/);
    // Arranged: the escrow lock the chain would have reported.
    const sql = postgres(processes.db.url, { max: 1, onnotice: () => {} });
    await sql`update payments.transactions set status = 'escrowed' where id = ${tx.id}`;
    await sql.end();
    const opened = await holdfast('disputes', 'open', '--transaction', tx.id, '--reason', 'not delivered', '--json');
    expect(opened.code, opened.stderr).toBe(0);
    const dispute = JSON.parse(opened.stdout);
    expect(dispute).toMatchObject({ transactionId: tx.id, status: 'open' });
    const got = await holdfast('disputes', 'get', dispute.id);
    expect(got.stdout).toMatch(/^currentTier\s+tier_1_smart_contract$/m);
    const listed = await holdfast('disputes', 'list', '--transaction', tx.id, '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: dispute.id, status: 'open' })]);
    const table = await holdfast('disputes', 'list', '--status', 'open');
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+TRANSACTIONID\s+STATUS/);
    expect(table.stdout).toContain(dispute.id);
  });

  it('checkout create prints the session and its url; --open hands the url to xdg-open when there is one', async () => {
    const to = address();
    const flags = ['--amount', '7.5', '--to', to, '--success-url', 'https://shop.example/ok', '--cancel-url', 'https://shop.example/no'];
    const made = await holdfast('checkout', 'create', ...flags, '--json');
    expect(made.code, made.stderr).toBe(0);
    const session = JSON.parse(made.stdout);
    expect(session).toMatchObject({ status: 'open', amount: '7.5', toAddress: to, url: `${paymentsUrl}/pay/${session.id}` });

    const bin = mkdtempSync(join(tmpdir(), 'holdfast-xdg-'));
    const opened = join(bin, 'opened');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${opened}\n`, { mode: 0o755 });
    try {
      const ran = await holdfastOn(`${bin}:${dirname(process.execPath)}`, 'checkout', 'create', ...flags, '--open');
      expect(ran.code, ran.stderr).toBe(0);
      const url = /^url\s+(\S+)/m.exec(ran.stdout)?.[1];
      expect(url).toMatch(new RegExp(`^${paymentsUrl}/pay/[0-9a-f-]{36}$`));
      expect(ran.stderr).toContain(`Opening ${url}`);
      for (let i = 0; i < 100 && !existsSync(opened); i += 1) await new Promise((r) => setTimeout(r, 50));
      expect(readFileSync(opened, 'utf8').trim()).toBe(url);

      const without = await holdfastOn(dirname(process.execPath), 'checkout', 'create', ...flags, '--open');
      expect(without.code, without.stderr).toBe(0);
      expect(without.stderr).toMatch(/Open http\S+\/pay\/\S+ in a browser \(no xdg-open found\)/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
    const refused = await holdfast(
      'checkout',
      'create',
      ...flags.slice(0, 4),
      '--success-url',
      'nope',
      '--cancel-url',
      'https://x.example',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('successUrl');
  });

  it('workspaces list with the workspace profile', async () => {
    const ran = await holdfast('workspaces', 'list', '--profile', 'ws');
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^ID\s+NAME\s+SLUG\s+STATUS/);
    expect(ran.stdout).toContain(tenant.workspaceId);
    expect(JSON.parse((await holdfast('workspaces', 'list', '--profile', 'ws', '--json')).stdout)[0].id).toBe(tenant.workspaceId);
  });

  it('trigger transaction.created creates a real transaction; an unreachable event is refused', async () => {
    const ran = await holdfast('trigger', 'transaction.created', '--json');
    expect(ran.code, ran.stderr).toBe(0);
    const { transaction } = JSON.parse(ran.stdout);
    const client = new PaymentsClient({
      baseUrl: paymentsUrl,
      clientId: tenant.sandbox.clientId,
      clientSecret: tenant.sandbox.clientSecret,
    });
    expect((await client.transactions.get(transaction.id)).status).toBe('pending');
    const refused = await holdfast('trigger', 'payment.made');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('possible: transaction.created, transaction.escrowed');
  });

  it('logs in with the client docs/cli.md creates; a client without a scope a trigger needs is refused before anything is done', async () => {
    const ran = await holdfast(
      'login',
      '--profile',
      'docs',
      '--api-url',
      paymentsUrl,
      '--client-id',
      docsClient.clientId,
      '--client-secret',
      docsClient.clientSecret,
    );
    expect(ran.code, ran.stderr).toBe(0);
    const narrow = await bootstrapClient(
      'narrow',
      docsScopes().filter((s) => s !== 'submit:evidence'),
    );
    const login = await holdfast(
      'login',
      '--profile',
      'narrow',
      '--api-url',
      paymentsUrl,
      '--client-id',
      narrow.clientId,
      '--client-secret',
      narrow.clientSecret,
    );
    expect(login.code, login.stderr).toBe(0);
    const before = (await docsPayments().transactions.list().firstPage()).pagination.total;
    const refused = await holdfast('trigger', 'evidence.submitted', '--profile', 'narrow', '--rpc-url', anvil.rpcUrl);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('trigger evidence.submitted needs the client scopes submit:evidence');
    expect(refused.stderr).not.toContain('Locking');
    // Nothing was created, let alone locked on chain.
    expect((await docsPayments().transactions.list().firstPage()).pagination.total).toBe(before);
  });

  it('trigger --override sets fields of what it creates', async () => {
    const ran = await holdfast(
      '--profile',
      'docs',
      'trigger',
      'transaction.created',
      '--override',
      'amount=2.5',
      '--override',
      'metadata.order=A1',
      '--json',
    );
    expect(ran.code, ran.stderr).toBe(0);
    const { transaction } = JSON.parse(ran.stdout);
    expect(await docsPayments().transactions.get(transaction.id)).toMatchObject({ amount: '2.5', metadata: { order: 'A1' } });
  });

  it('trigger transaction.escrowed locks a real escrow on the chain, and dispute.created opens a dispute on one', async () => {
    const client = docsPayments();
    const escrowed = await holdfast('--profile', 'docs', 'trigger', 'transaction.escrowed', '--rpc-url', anvil.rpcUrl, '--json');
    expect(escrowed.code, escrowed.stderr).toBe(0);
    expect(escrowed.stderr).toContain('Locking its escrow on the chain');
    const { transaction } = JSON.parse(escrowed.stdout);
    expect((await client.transactions.get(transaction.id)).status).toBe('escrowed');
    // Where the escrow stands on chain (docs/transactions.md, finality): the default level, reached.
    const shown = await holdfast('--profile', 'docs', 'transactions', 'get', transaction.id);
    expect(shown.stdout).toMatch(/^requiredFinality\s+confirmed$/m);
    expect(shown.stdout).toMatch(/^finality\s+(confirmed|safe|finalized)$/m);
    expect(shown.stdout).toMatch(/^blockNumber\s+\d+$/m);
    const disputed = await holdfast('--profile', 'docs', 'trigger', 'dispute.created', '--rpc-url', anvil.rpcUrl);
    expect(disputed.code, disputed.stderr).toBe(0);
    const disputeId = /dispute ([0-9a-f-]{36})/.exec(disputed.stdout)?.[1] as string;
    expect((await client.disputes.get(disputeId)).status).toBe('open');
  });

  it('trigger evidence.submitted, dispute.escalated and dispute.resolved leave the objects that emit them', async () => {
    const client = docsPayments();
    const run = async (type: string) => {
      const ran = await holdfast('--profile', 'docs', 'trigger', type, '--rpc-url', anvil.rpcUrl, '--json');
      expect(ran.code, ran.stderr).toBe(0);
      return JSON.parse(ran.stdout);
    };
    const withEvidence = await run('evidence.submitted');
    expect((await client.disputes.get(withEvidence.dispute.id)).evidence.map((e: { id: string }) => e.id)).toContain(
      withEvidence.evidence.id,
    );
    const escalated = await run('dispute.escalated');
    expect((await client.disputes.get(escalated.dispute.id)).currentTier).not.toBe('tier_1_smart_contract');
    const refunded = await run('dispute.resolved');
    expect(await client.disputes.get(refunded.dispute.id)).toMatchObject({ status: 'resolved', outcome: 'favor_sender' });
    expect((await client.transactions.get(refunded.transaction.id)).status).toBe('refunded');
  });
});

describe('holdfast trigger: the sender’s own rescind and a reverted transfer', () => {
  const client = docsPayments;

  it('trigger transaction.rescinded locks a real escrow, rescinds it from the sender’s wallet, and Payments shows it rescinded', async () => {
    const ran = await holdfast('--profile', 'docs', 'trigger', 'transaction.rescinded', '--rpc-url', anvil.rpcUrl, '--json');
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('Rescinding the escrow from the sender’s wallet');
    const { event, transaction } = JSON.parse(ran.stdout);
    expect(event).toBe('transaction.rescinded');
    expect(transaction.status).toBe('rescinded');
    expect((await client().transactions.get(transaction.id)).status).toBe('rescinded');
  });

  it('trigger transaction.failed sends a transfer that reverts on chain and Payments fails the transaction; without the token it is a usage error', async () => {
    const ran = await holdfast(
      '--profile',
      'docs',
      'trigger',
      'transaction.failed',
      '--rpc-url',
      anvil.rpcUrl,
      '--token-address',
      usdcAddress,
      '--json',
    );
    expect(ran.code, ran.stderr).toBe(0);
    const { event, transaction } = JSON.parse(ran.stdout);
    expect(event).toBe('transaction.failed');
    expect(transaction.status).toBe('failed');
    const stored = await client().transactions.get(transaction.id);
    expect(stored.status).toBe('failed');
    expect(stored.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const missing = await holdfast('--profile', 'docs', 'trigger', 'transaction.failed', '--rpc-url', anvil.rpcUrl);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--token-address');
  });
});

describe('holdfast listen', () => {
  it('forwards a real transaction.created to host:port, signed so that verifyWebhook accepts it, retrying a failed forward', async () => {
    const received: { body: string; headers: IncomingHttpHeaders }[] = [];
    let secret = '';
    const verified: WebhookEvent[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({ body, headers: req.headers });
        try {
          const event = verifyWebhook(body, req.headers, secret);
          // The first forward of each event meets a receiver that is restarting.
          if (received.filter((r) => r.body === body).length === 1) return void res.writeHead(503).end();
          verified.push(event);
          res.writeHead(202).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const child: ChildProcess = spawn(
      process.execPath,
      [main, 'listen', '--forward-to', `127.0.0.1:${port}/hooks`, '--events', 'transaction.created'],
      { env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: config } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const until = async (what: () => boolean, label: string) => {
      const deadline = Date.now() + 20_000;
      while (!what()) {
        if (Date.now() > deadline) throw new Error(`${label}; stdout: ${stdout}; stderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await until(() => /signing secret is (whsec_\S+)/.test(stdout), 'listen never got ready');
      secret = /signing secret is (whsec_\S+)/.exec(stdout)?.[1] as string;
      expect(stderr).toContain('Connecting to the event stream');
      const client = new PaymentsClient({
        baseUrl: paymentsUrl,
        clientId: tenant.sandbox.clientId,
        clientSecret: tenant.sandbox.clientSecret,
      });
      const tx = await client.transactions.create({ fromAddress: address(), toAddress: address(), amount: 4, orchestrationType: 'raw' });
      await until(() => verified.some((e) => e.type === 'transaction.created' && e.data.transaction.id === tx.id), 'no verified forward');
      const forwarded = received.filter((r) => r.body.includes(tx.id));
      expect(forwarded).toHaveLength(2);
      expect(forwarded[0]?.headers).toMatchObject({ 'x-webhook-event': 'transaction.created', 'user-agent': 'Holdfast-Webhooks/1.0' });
      expect(forwarded[0]?.headers['webhook-id']).toBe(forwarded[0]?.headers['x-webhook-delivery']);
      // Both attempts are one delivery: the same id, so a receiver that took the first drops the second.
      expect(forwarded[1]?.headers['webhook-id']).toBe(forwarded[0]?.headers['webhook-id']);
      await until(() => /transaction\.created\s+evt_\S+\s+→ 202 \(\d+ ms, 2 attempts\)/.test(stdout), 'the forward status was not shown');
      expect(stdout).toContain(`Forwarding transaction.created to http://127.0.0.1:${port}/hooks`);
      // The secret is the profile's: the same on the next run.
      expect(JSON.parse(readFileSync(join(config, 'holdfast', 'config.json'), 'utf8')).profiles.default.listenSecret).toBe(secret);
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('holdfast events and logs (Workspace API login, real deliveries of the dispatcher)', () => {
  it('events list shows the deliveries to the workspace webhooks, events resend delivers one again, logs tail follows new attempts', async () => {
    const hits: { body: string; headers: IncomingHttpHeaders }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hits.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const workspace = new WorkspaceClient({ baseUrl: workspaceUrl, email: tenant.email, password: tenant.password });
    const hook = await workspace.webhooks.create(tenant.workspaceId, {
      url: `http://127.0.0.1:${port}/hooks`,
      eventTypes: ['transaction.created'],
    });
    const payments = new PaymentsClient({
      baseUrl: paymentsUrl,
      clientId: tenant.sandbox.clientId,
      clientSecret: tenant.sandbox.clientSecret,
    });
    const waitFor = async <T>(probe: () => T | undefined | false, label: string): Promise<T> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const value = probe();
        if (value) return value;
        if (Date.now() > deadline) throw new Error(label);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    let tail: ChildProcess | undefined;
    try {
      const tx = await payments.transactions.create({ fromAddress: address(), toAddress: address(), amount: 3, orchestrationType: 'raw' });
      const first = await waitFor(() => hits.find((h) => h.body.includes(tx.id)), 'no delivery');
      const eventId = JSON.parse(first.body).id as string;
      // The log of the attempt is written once the receiver answered.
      let rows: { eventId: string; deliveryId: string; statusCode: number; success: boolean }[] = [];
      for (let i = 0; i < 100 && !rows.some((r) => r.eventId === eventId); i += 1) {
        const listed = await holdfast('--profile', 'ws', '--json', 'events', 'list');
        expect(listed.code, listed.stderr).toBe(0);
        rows = JSON.parse(listed.stdout);
        if (!rows.some((r) => r.eventId === eventId)) await new Promise((r) => setTimeout(r, 200));
      }
      const row = rows.find((r) => r.eventId === eventId);
      expect(row).toMatchObject({ eventId, statusCode: 204, success: true });
      expect(row?.deliveryId).toBe(first.headers['webhook-id']);
      const table = await holdfast('events', 'list', '--profile', 'ws');
      expect(table.stdout.split('\n')[0]).toMatch(/^AT\s+EVENTTYPE\s+EVENTID\s+DELIVERYID/);

      const resent = await holdfast('--profile', 'ws', 'events', 'resend', row?.deliveryId as string);
      expect(resent.code, resent.stderr).toBe(0);
      expect(resent.stdout).toContain(`(${eventId}) for an attempt now`);
      const again = await waitFor(
        () => hits.filter((h) => h.body.includes(tx.id)).length >= 2 && hits.filter((h) => h.body.includes(tx.id))[1],
        'no resend',
      );
      expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
      const unknown = await holdfast('--profile', 'ws', 'events', 'resend', '0193a7c4-7a00-7c1d-8e2f-3a4b5c6d7e8f');
      expect(unknown.code).toBe(2);

      tail = spawn(process.execPath, [main, '--profile', 'ws', 'logs', 'tail', '--json', '--interval', '0.3'], {
        env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: config },
      });
      let out = '';
      tail.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
      });
      await waitFor(() => out.includes('"ready":true'), `logs tail never got ready: ${out}`);
      const next = await payments.transactions.create({
        fromAddress: address(),
        toAddress: address(),
        amount: 4,
        orchestrationType: 'raw',
      });
      const delivered = await waitFor(() => hits.find((h) => h.body.includes(next.id)), 'no delivery of the second');
      const nextEvent = JSON.parse(delivered.body).id as string;
      const line = await waitFor(() => out.split('\n').find((l) => l.includes(nextEvent)), `logs tail did not show ${nextEvent}: ${out}`);
      expect(JSON.parse(line)).toMatchObject({
        eventType: 'transaction.created',
        eventId: nextEvent,
        statusCode: 204,
        success: true,
        deliveryAttempt: 1,
      });
      // What was delivered before the tail started is not repeated.
      expect(out).not.toContain(`"eventId":"${eventId}"`);
    } finally {
      tail?.kill('SIGINT');
      if (tail) await new Promise((r) => tail?.once('exit', r));
      await workspace.webhooks.delete(tenant.workspaceId, hook.id);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

// Last: the test clock moves the chain's clock forward, which ends the hold of every escrow on it.
describe('holdfast trigger transaction.completed (the test clock, no dispute)', () => {
  it('attests the release, ends the hold with advance_hold, and the attester’s release completes the transaction', async () => {
    const ran = await holdfast('--profile', 'docs', 'trigger', 'transaction.completed', '--rpc-url', anvil.rpcUrl, '--json');
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('Ending the hold with the test clock');
    const { transaction } = JSON.parse(ran.stdout);
    const stored = await docsPayments().transactions.get(transaction.id);
    expect(stored.status).toBe('completed');
    expect(await docsPayments().disputes.list({ transactionId: transaction.id }).toArray()).toEqual([]);
  }, 180_000);
});
