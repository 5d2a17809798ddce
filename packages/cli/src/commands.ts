import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  type EventType,
  FINALITY_LEVELS,
  HoldfastError,
  newWebhookSecret,
  PaymentsClient,
  type StreamStatus,
  signWebhook,
  WorkspaceClient,
} from '@holdfast/sdk';
import { type EscrowTerms, lockEscrow, refusedTransfer, rescindEscrow, senderAccount } from './chain.js';
import { type Io, record, table, withProgress } from './output.js';
import { configPath, loadProfile, type Profile, saveProfile } from './profiles.js';

export type Flags = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface Context {
  io: Io;
  flags: Flags;
  args: string[];
  profileName: string;
  json: boolean;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  run: (context: Context) => Promise<void>;
}

/** A usage mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

/** Where the escrow stands on chain (docs/transactions.md, finality): shown by `transactions get`. */
const FINALITY_COLUMNS = ['requiredFinality', 'finality', 'confirmations', 'blockNumber', 'blockHash'];
const TRANSACTION_COLUMNS = ['id', 'status', 'amount', 'currency', 'fromAddress', 'toAddress', 'blockchainNetwork', 'createdAt'];

const text = (flags: Flags, name: string): string | undefined => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
function required(flags: Flags, name: string): string {
  const value = text(flags, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}
const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;

function profileOf(context: Context): Profile {
  const profile = loadProfile(context.profileName);
  if (!profile)
    throw new UsageError(
      `no profile "${context.profileName}": run holdfast login${context.profileName === 'default' ? '' : ` --profile ${context.profileName}`}`,
    );
  return profile;
}

function paymentsClient(context: Context): PaymentsClient {
  const profile = profileOf(context);
  if (!profile.apiUrl || !profile.clientId || !profile.clientSecret) {
    throw new UsageError(`profile "${context.profileName}" has no Payments API client: holdfast login --client-id … --client-secret …`);
  }
  return new PaymentsClient({
    baseUrl: profile.apiUrl,
    clientId: profile.clientId,
    clientSecret: profile.clientSecret,
    userAgent: 'holdfast-cli',
    onTokenFetch: (phase) => {
      if (phase === 'start' && !context.json) context.io.err('Fetching an access token…');
    },
  });
}

function workspaceClient(context: Context): WorkspaceClient {
  const profile = profileOf(context);
  if (!profile.workspaceUrl || !profile.email || !profile.password) {
    throw new UsageError(`profile "${context.profileName}" has no Workspace API login: holdfast login --email … --password …`);
  }
  return new WorkspaceClient({
    baseUrl: profile.workspaceUrl,
    email: profile.email,
    password: profile.password,
    userAgent: 'holdfast-cli',
  });
}

function show(context: Context, value: unknown, human: () => string): void {
  context.io.out(context.json ? JSON.stringify(value, null, 2) : human());
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

const login: Command = {
  name: 'login',
  summary: 'Store credentials in a profile (Payments client id and secret, and/or Workspace e-mail and password)',
  usage:
    'holdfast login [--api-url URL] [--client-id ID --client-secret SECRET] [--workspace-url URL] [--email E --password P] [--profile NAME]\n' +
    'Secrets may come from HOLDFAST_CLIENT_SECRET and HOLDFAST_PASSWORD instead of flags; asked for when on a terminal and missing.',
  options: {
    'api-url': { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'workspace-url': { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
  },
  run: async (context) => {
    const { flags, env, io } = context;
    let clientId = text(flags, 'client-id') ?? env.HOLDFAST_CLIENT_ID;
    let email = text(flags, 'email') ?? env.HOLDFAST_EMAIL;
    if (!clientId && !email && process.stdin.isTTY) {
      clientId = (await ask('OAuth client id (hf_client_…, empty to log in with e-mail instead): ')) || undefined;
      if (!clientId) email = await ask('Workspace e-mail: ');
    }
    if (!clientId && !email) throw new UsageError('give --client-id and --client-secret, or --email and --password');
    const changes: Profile = {};
    if (clientId) {
      const clientSecret =
        text(flags, 'client-secret') ?? env.HOLDFAST_CLIENT_SECRET ?? (process.stdin.isTTY ? await ask('Client secret: ') : '');
      if (!clientSecret) throw new UsageError('--client-secret is required with --client-id');
      const apiUrl = (text(flags, 'api-url') ?? env.HOLDFAST_API_URL ?? 'http://127.0.0.1:3001').replace(/\/+$/, '');
      const client = new PaymentsClient({ baseUrl: apiUrl, clientId, clientSecret, userAgent: 'holdfast-cli' });
      const platform = await withProgress(io, `Checking the client at ${apiUrl}`, () => client.platforms.me());
      Object.assign(changes, { apiUrl, clientId, clientSecret });
      if (!context.json) io.err(`Payments API: platform ${platform.name} (${platform.id})`);
    }
    if (email) {
      const password = text(flags, 'password') ?? env.HOLDFAST_PASSWORD ?? (process.stdin.isTTY ? await ask('Password: ') : '');
      if (!password) throw new UsageError('--password is required with --email');
      const workspaceUrl = (text(flags, 'workspace-url') ?? env.HOLDFAST_WORKSPACE_URL ?? 'http://127.0.0.1:3002').replace(/\/+$/, '');
      const user = await withProgress(io, `Signing in at ${workspaceUrl}`, () =>
        new WorkspaceClient({ baseUrl: workspaceUrl, email, password }).me(),
      );
      Object.assign(changes, { workspaceUrl, email, password });
      if (!context.json) io.err(`Workspace API: ${user.email} (${user.role})`);
    }
    saveProfile(context.profileName, changes);
    show(
      context,
      { profile: context.profileName, path: configPath(env) },
      () => `Saved profile "${context.profileName}" to ${configPath(env)}`,
    );
  },
};

const transactionsCreate: Command = {
  name: 'transactions create',
  summary: 'Create a transaction',
  usage:
    'holdfast transactions create --from ADDRESS --to ADDRESS --amount N [--currency USDC] [--network base-sepolia] [--orchestration platform|raw] [--finality seen|confirmed|safe|finalized] [--idempotency-key KEY] [--metadata JSON]',
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    amount: { type: 'string' },
    currency: { type: 'string' },
    network: { type: 'string' },
    orchestration: { type: 'string' },
    finality: { type: 'string' },
    'idempotency-key': { type: 'string' },
    metadata: { type: 'string' },
  },
  run: async (context) => {
    const { flags } = context;
    const finality = text(flags, 'finality');
    if (finality !== undefined && !(FINALITY_LEVELS as readonly string[]).includes(finality)) {
      throw new UsageError(`--finality must be one of ${FINALITY_LEVELS.join(', ')}`);
    }
    const amount = Number(required(flags, 'amount'));
    if (!Number.isFinite(amount)) throw new UsageError('--amount must be a number');
    const body = {
      fromAddress: required(flags, 'from'),
      toAddress: required(flags, 'to'),
      amount,
      ...(text(flags, 'currency') ? { currency: text(flags, 'currency') } : {}),
      ...(text(flags, 'network') ? { blockchainNetwork: text(flags, 'network') } : {}),
      ...(text(flags, 'orchestration') ? { orchestrationType: text(flags, 'orchestration') } : {}),
      ...(finality ? { finality } : {}),
      ...(text(flags, 'metadata') ? { metadata: JSON.parse(text(flags, 'metadata') as string) } : {}),
    } as Parameters<PaymentsClient['transactions']['create']>[0];
    const key = text(flags, 'idempotency-key');
    const created = await paymentsClient(context).transactions.create(body, key ? { idempotencyKey: key } : {});
    show(context, created, () =>
      record(created, [...TRANSACTION_COLUMNS, 'orchestrationType', 'requiredFinality', 'idempotencyKey', 'holdDeadline']),
    );
  },
};

const CHECKOUT_COLUMNS = ['id', 'status', 'url', 'amount', 'currency', 'toAddress', 'expiresAt', 'transactionId'];

/** `xdg-open` on the PATH, if there is one (nothing is installed or assumed). */
function xdgOpen(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'xdg-open');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const checkoutCreate: Command = {
  name: 'checkout create',
  summary: 'Create a checkout session (a payment the payer completes on the hosted page)',
  usage:
    'holdfast checkout create --amount N --to ADDRESS --success-url URL --cancel-url URL [--currency USDC] [--network base-sepolia] [--expires-in SECONDS (default 1800, at most 86400)] [--customer-id ID] [--metadata JSON] [--idempotency-key KEY] [--open (print the url and open it with xdg-open when there is one)]',
  options: {
    amount: { type: 'string' },
    to: { type: 'string' },
    'success-url': { type: 'string' },
    'cancel-url': { type: 'string' },
    currency: { type: 'string' },
    network: { type: 'string' },
    'expires-in': { type: 'string' },
    'customer-id': { type: 'string' },
    metadata: { type: 'string' },
    'idempotency-key': { type: 'string' },
    open: { type: 'boolean' },
  },
  run: async (context) => {
    const { flags } = context;
    const amount = Number(required(flags, 'amount'));
    if (!Number.isFinite(amount)) throw new UsageError('--amount must be a number');
    const expiresIn = text(flags, 'expires-in');
    if (expiresIn !== undefined && !/^\d+$/.test(expiresIn)) throw new UsageError('--expires-in must be a number of seconds');
    const body = {
      amount,
      toAddress: required(flags, 'to'),
      successUrl: required(flags, 'success-url'),
      cancelUrl: required(flags, 'cancel-url'),
      ...(text(flags, 'currency') ? { currency: text(flags, 'currency') } : {}),
      ...(text(flags, 'network') ? { blockchainNetwork: text(flags, 'network') } : {}),
      ...(expiresIn ? { expiresInSeconds: Number(expiresIn) } : {}),
      ...(text(flags, 'customer-id') ? { customerId: text(flags, 'customer-id') } : {}),
      ...(text(flags, 'metadata') ? { metadata: JSON.parse(text(flags, 'metadata') as string) } : {}),
    } as Parameters<PaymentsClient['checkout']['sessions']['create']>[0];
    const key = text(flags, 'idempotency-key');
    const session = await paymentsClient(context).checkout.sessions.create(body, key ? { idempotencyKey: key } : {});
    show(context, session, () => record(session, CHECKOUT_COLUMNS));
    if (flags.open === true) {
      const opener = xdgOpen(context.env);
      if (!context.json) context.io.err(opener ? `Opening ${session.url}` : `Open ${session.url} in a browser (no xdg-open found)`);
      if (opener) spawn(opener, [session.url], { detached: true, stdio: 'ignore', env: context.env }).unref();
    }
  },
};

/** `holdfast <group> get ID`: one record of the Payments API (`read`), shown as `human` writes it. */
function getCommand<T>(
  group: string,
  noun: string,
  summary: string,
  read: (client: PaymentsClient, id: string) => Promise<T>,
  human: (value: T) => string,
): Command {
  return {
    name: `${group} get`,
    summary,
    usage: `holdfast ${group} get ID`,
    options: {},
    run: async (context) => {
      const id = context.args[0];
      if (!id) throw new UsageError(`give the ${noun} id`);
      const value = await read(paymentsClient(context), id);
      show(context, value, () => human(value));
    },
  };
}

const transactionsGet = getCommand(
  'transactions',
  'transaction',
  'Show one transaction',
  (client, id) => client.transactions.get(id),
  (tx) => record(tx, [...TRANSACTION_COLUMNS, 'orchestrationType', 'txHash', ...FINALITY_COLUMNS, 'updatedAt']),
);

const transactionsList: Command = {
  name: 'transactions list',
  summary: 'List transactions, newest first',
  usage: 'holdfast transactions list [--status STATUS] [--from ADDRESS] [--to ADDRESS] [--limit N (default 20)]',
  options: { status: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, limit: { type: 'string' } },
  run: async (context) => {
    const { flags } = context;
    const limit = Number(text(flags, 'limit') ?? 20);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
    const filters = {
      ...(text(flags, 'status') ? { status: text(flags, 'status') } : {}),
      ...(text(flags, 'from') ? { fromAddress: text(flags, 'from') } : {}),
      ...(text(flags, 'to') ? { toAddress: text(flags, 'to') } : {}),
      limit: Math.min(limit, 100),
    } as Parameters<PaymentsClient['transactions']['list']>[0];
    const rows: Awaited<ReturnType<PaymentsClient['transactions']['get']>>[] = [];
    for await (const tx of paymentsClient(context).transactions.list(filters)) {
      rows.push(tx);
      if (rows.length >= limit) break;
    }
    show(context, rows, () => (rows.length ? table(rows, TRANSACTION_COLUMNS) : 'No transactions.'));
  },
};

const batchesCreate: Command = {
  name: 'batches create',
  summary: 'Create a batch: one sender, one leg per --leg ADDRESS:AMOUNT',
  usage:
    'holdfast batches create --from ADDRESS --leg ADDRESS:AMOUNT [--leg ...] [--currency USDC] [--network base-sepolia] [--idempotency-key KEY]',
  options: {
    from: { type: 'string' },
    leg: { type: 'string', multiple: true },
    currency: { type: 'string' },
    network: { type: 'string' },
    'idempotency-key': { type: 'string' },
  },
  run: async (context) => {
    const { flags } = context;
    const legs = ((flags.leg as string[] | undefined) ?? []).map((leg) => {
      const at = leg.lastIndexOf(':');
      const amount = Number(leg.slice(at + 1));
      if (at <= 0 || !Number.isFinite(amount)) throw new UsageError(`--leg ${leg}: expected ADDRESS:AMOUNT`);
      return { toAddress: leg.slice(0, at), amount };
    });
    if (legs.length === 0) throw new UsageError('give at least one --leg ADDRESS:AMOUNT');
    const body = {
      fromAddress: required(flags, 'from'),
      legs,
      signerType: 'external_wallet',
      ...(text(flags, 'currency') ? { currency: text(flags, 'currency') } : {}),
      ...(text(flags, 'network') ? { blockchainNetwork: text(flags, 'network') } : {}),
    } as Parameters<PaymentsClient['batches']['create']>[0];
    const key = text(flags, 'idempotency-key');
    const batch = await paymentsClient(context).batches.create(body, key ? { idempotencyKey: key } : {});
    show(
      context,
      batch,
      () =>
        `${record(batch, ['id', 'status', 'fromAddress', 'currency', 'blockchainNetwork', 'createdAt'])}\n\n${table(batch.legs as unknown as Record<string, unknown>[], ['id', 'toAddress', 'amount', 'status'])}`,
    );
  },
};

const batchesGet = getCommand(
  'batches',
  'batch',
  'Show one batch with its legs',
  (client, id) => client.batches.get(id),
  (batch) =>
    `${record(batch, ['id', 'status', 'fromAddress', 'currency', 'blockchainNetwork', 'createdAt'])}\n\n${table(batch.legs as unknown as Record<string, unknown>[], ['id', 'toAddress', 'amount', 'status'])}`,
);

const DISPUTE_KEYS = ['id', 'transactionId', 'status', 'currentTier', 'initiatedBy', 'reason', 'outcome', 'createdAt'];

const disputesOpen: Command = {
  name: 'disputes open',
  summary: 'Open a dispute on an escrowed transaction',
  usage: 'holdfast disputes open --transaction ID --reason TEXT [--initiated-by sender|receiver]',
  options: { transaction: { type: 'string' }, reason: { type: 'string' }, 'initiated-by': { type: 'string' } },
  run: async (context) => {
    const { flags } = context;
    const dispute = await paymentsClient(context).disputes.open({
      transactionId: required(flags, 'transaction'),
      reason: required(flags, 'reason'),
      initiatedBy: (text(flags, 'initiated-by') ?? 'sender') as 'sender' | 'receiver',
    });
    show(context, dispute, () => record(dispute, DISPUTE_KEYS));
  },
};

const disputesGet = getCommand(
  'disputes',
  'dispute',
  'Show one dispute',
  (client, id) => client.disputes.get(id),
  (dispute) => record(dispute, [...DISPUTE_KEYS, 'evidence']),
);

const workspacesList: Command = {
  name: 'workspaces list',
  summary: 'List the workspaces you administer (Workspace API login)',
  usage: 'holdfast workspaces list',
  options: {},
  run: async (context) => {
    const rows = await withProgress(context.io, 'Loading workspaces', () => workspaceClient(context).workspaces.list().toArray());
    show(context, rows, () => (rows.length ? table(rows, ['id', 'name', 'slug', 'status', 'email', 'createdAt']) : 'No workspaces.'));
  },
};

const listen: Command = {
  name: 'listen',
  summary: "Receive your platform's events live and forward each, signed like a real delivery, to a local URL",
  usage:
    'holdfast listen --forward-to http://127.0.0.1:PORT/path [--events transaction.created,...]\n' +
    'Signs with a local secret (whsec_…) kept in the profile and printed at start: verify with verifyWebhook(body, headers, secret).',
  options: { 'forward-to': { type: 'string' }, events: { type: 'string' } },
  run: async (context) => {
    const { io, flags } = context;
    const target = required(flags, 'forward-to');
    if (!/^https?:\/\//.test(target)) throw new UsageError('--forward-to must be an http(s) URL');
    const types = text(flags, 'events')
      ?.split(',')
      .map((t) => t.trim())
      .filter(Boolean) as EventType[] | undefined;
    const client = paymentsClient(context);
    const profile = profileOf(context);
    const secret = profile.listenSecret ?? (saveProfile(context.profileName, { listenSecret: newWebhookSecret() }).listenSecret as string);
    const onStatus = (status: StreamStatus) => {
      if (status.state === 'connecting' && status.attempt === 1) io.err('Connecting to the event stream…');
      if (status.state === 'connected') {
        if (context.json) io.out(JSON.stringify({ ready: true, secret, forwardTo: target }));
        else io.out(`Ready! Forwarding ${types?.join(', ') ?? 'every event'} to ${target}\nYour local webhook signing secret is ${secret}`);
      }
      if (status.state === 'reconnecting')
        io.err(`Connection lost (${status.error.message}); reconnecting in ${Math.round(status.inMs / 1000)} s…`);
    };
    for await (const { event } of client.events.stream({ ...(types?.length ? { types } : {}), signal: context.signal, onStatus })) {
      const body = JSON.stringify(event);
      const { headers } = signWebhook(body, secret, { eventType: event.type });
      const started = Date.now();
      let status: number | string;
      try {
        const answer = await fetch(target, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
        status = answer.status;
        await answer.body?.cancel();
      } catch (error) {
        status = `failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
      }
      const ms = Date.now() - started;
      if (context.json) io.out(JSON.stringify({ eventId: event.id, type: event.type, deliveryId: headers['webhook-id'], status, ms }));
      else io.out(`${new Date().toISOString()}  ${event.type.padEnd(22)} ${event.id}  → ${status} (${ms} ms)`);
    }
  },
};

interface Trigger {
  how: string;
  run: (context: Context, client: PaymentsClient) => Promise<Record<string, unknown>>;
}

type NewTransaction = Awaited<ReturnType<PaymentsClient['transactions']['create']>>;

/** A platform transaction whose escrow the sender's wallet locked on chain, shown `escrowed` by Payments. */
async function escrowedTransaction(context: Context, client: PaymentsClient): Promise<NewTransaction> {
  const { io } = context;
  const { account, rpcUrl } = senderOnChain(context);
  const tx = await withProgress(io, `Creating a transaction from ${account.address}`, () =>
    client.transactions.create({
      fromAddress: account.address,
      toAddress: randomAddress(),
      amount: 1,
      currency: 'MockUSDC',
      orchestrationType: 'platform',
    }),
  );
  const hash = await withProgress(io, `Locking its escrow on the chain at ${rpcUrl}`, () =>
    lockEscrow({ rpcUrl, account, toAddress: tx.toAddress, terms: tx.escrow as EscrowTerms }),
  );
  await withProgress(io, 'Waiting for Payments to see the escrow', async () => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await client.transactions.submitEscrowHash(tx.id, { transactionHash: hash }).catch((error: unknown) => error);
      if (!(answer instanceof Error) || (await client.transactions.get(tx.id)).status === 'escrowed') return;
      if (!(answer instanceof HoldfastError && answer.code === 'CHAIN_TRANSACTION_PENDING') || Date.now() > deadline) throw answer;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });
  return tx;
}

/** The sender's wallet and the chain, from the flags, the environment or the local defaults. */
function senderOnChain(context: Context) {
  const account = senderAccount(text(context.flags, 'sender-key') ?? context.env.HOLDFAST_SENDER_KEY);
  const rpcUrl = text(context.flags, 'rpc-url') ?? context.env.HOLDFAST_RPC_URL ?? 'http://127.0.0.1:8545';
  return { account, rpcUrl };
}

/** Repeats a hash submission while the chain has not confirmed it yet (409 CHAIN_TRANSACTION_PENDING), for a minute at most. */
async function untilConfirmed<T>(submit: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await submit();
    } catch (error) {
      if (!(error instanceof HoldfastError && error.code === 'CHAIN_TRANSACTION_PENDING') || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** An escrowed transaction, then the sender's own rescind on chain (during the hold period), submitted to Payments. */
async function rescindedTransaction(context: Context, client: PaymentsClient) {
  const tx = await escrowedTransaction(context, client);
  const { account, rpcUrl } = senderOnChain(context);
  const terms = tx.escrow as EscrowTerms;
  const hash = await withProgress(context.io, 'Rescinding the escrow from the sender’s wallet', () =>
    rescindEscrow({ rpcUrl, account, contractAddress: terms.contractAddress as string, onchainId: terms.onchainId }),
  );
  const answer = await withProgress(context.io, 'Submitting the rescind to Payments', () =>
    untilConfirmed(() => client.transactions.rescind(tx.id, { txHash: hash, reason: 'holdfast trigger' })),
  );
  return { transaction: answer.transaction };
}

/**
 * A raw transaction of 1 MockUSDC from the sender, then the sender's transfer that the token refuses
 * (more than the wallet holds) submitted as its hash: Payments sees the revert and fails it.
 */
async function failedTransaction(context: Context, client: PaymentsClient) {
  const { account, rpcUrl } = senderOnChain(context);
  const tokenAddress = text(context.flags, 'token-address') ?? context.env.HOLDFAST_TOKEN_ADDRESS;
  if (!tokenAddress) {
    throw new UsageError(
      'transaction.failed needs the MockUSDC address (--token-address or HOLDFAST_TOKEN_ADDRESS; ./scripts/start prints it as "Contracts: MockUSDC 0x…")',
    );
  }
  const tx = await withProgress(context.io, `Creating a transaction from ${account.address}`, () =>
    client.transactions.create({
      fromAddress: account.address,
      toAddress: randomAddress(),
      amount: 1,
      currency: 'MockUSDC',
      orchestrationType: 'raw',
    }),
  );
  const hash = await withProgress(context.io, 'Sending a transfer the token refuses (more than the wallet holds)', () =>
    refusedTransfer({ rpcUrl, account, tokenAddress, toAddress: tx.toAddress }),
  );
  const answer = await withProgress(context.io, 'Submitting its hash to Payments', () =>
    untilConfirmed(() => client.transactions.submitHash(tx.id, { txHash: hash })),
  );
  return { transaction: answer.transaction };
}

async function openedDispute(context: Context, client: PaymentsClient) {
  const tx = await escrowedTransaction(context, client);
  const dispute = await withProgress(context.io, 'Opening a dispute', () =>
    client.disputes.open({ transactionId: tx.id, initiatedBy: 'sender', reason: 'holdfast trigger' }),
  );
  return { transaction: tx, dispute };
}

const resolvedFor = (outcome: 'favor_sender' | 'favor_receiver') => async (context: Context, client: PaymentsClient) => {
  const { transaction, dispute } = await openedDispute(context, client);
  const resolved = await withProgress(context.io, `Resolving it (${outcome})`, () =>
    client.disputes.resolve(dispute.id, { outcome, resolutionReason: 'holdfast trigger' }),
  );
  return { transaction, dispute: resolved };
};

const CHAIN = 'a platform transaction whose escrow the sender wallet locks on the local chain';
const TRIGGERS: Record<string, Trigger> = {
  'transaction.created': {
    how: 'creates a transaction (raw orchestration, random addresses, 1 USDC)',
    run: async (context, client) => ({
      transaction: await withProgress(context.io, 'Creating a transaction', () =>
        client.transactions.create({
          fromAddress: randomAddress(),
          toAddress: randomAddress(),
          amount: 1,
          currency: 'USDC',
          orchestrationType: 'raw',
        }),
      ),
    }),
  },
  'transaction.escrowed': { how: CHAIN, run: async (context, client) => ({ transaction: await escrowedTransaction(context, client) }) },
  'dispute.created': { how: `${CHAIN}, then a dispute on it`, run: openedDispute },
  'evidence.submitted': {
    how: 'a dispute, then evidence on it',
    run: async (context, client) => {
      const opened = await openedDispute(context, client);
      const evidence = await withProgress(context.io, 'Submitting evidence', () =>
        client.disputes.submitEvidence(opened.dispute.id, {
          submittedBy: 'sender',
          type: 'text',
          title: 'holdfast trigger',
          content: 'evidence',
        }),
      );
      return { ...opened, evidence };
    },
  },
  'dispute.escalated': {
    how: 'a dispute, then its escalation',
    run: async (context, client) => {
      const opened = await openedDispute(context, client);
      return { ...opened, dispute: await withProgress(context.io, 'Escalating it', () => client.disputes.escalate(opened.dispute.id)) };
    },
  },
  'dispute.resolved': { how: 'a dispute, then resolved for the sender (also transaction.refunded)', run: resolvedFor('favor_sender') },
  'transaction.refunded': { how: 'a dispute resolved for the sender', run: resolvedFor('favor_sender') },
  'transaction.completed': { how: 'a dispute resolved for the receiver', run: resolvedFor('favor_receiver') },
  'transaction.rescinded': { how: `${CHAIN}, then the sender's own rescind on chain`, run: rescindedTransaction },
  'transaction.failed': {
    how: 'a raw MockUSDC transaction whose transfer reverts on chain (needs --token-address)',
    run: failedTransaction,
  },
};

const trigger: Command = {
  name: 'trigger',
  summary: 'Make an event happen for real on the profile’s platform (transaction.created, transaction.escrowed, dispute.created…)',
  usage: `holdfast trigger EVENT [--sender-key 0x… (default: anvil's dev account #4)] [--rpc-url URL (default http://127.0.0.1:8545)] [--token-address 0x… (transaction.failed: the MockUSDC)]\nEvents:\n${Object.entries(
    TRIGGERS,
  )
    .map(([type, t]) => `  ${type.padEnd(22)} ${t.how}`)
    .join(
      '\n',
    )}\nOnly transaction.created needs no chain; the others use a local chain's test wallet (lock an escrow, rescind it, or send a transfer that reverts).`,
  options: { 'sender-key': { type: 'string' }, 'rpc-url': { type: 'string' }, 'token-address': { type: 'string' } },
  run: async (context) => {
    const type = context.args[0];
    const chosen = type ? TRIGGERS[type] : undefined;
    if (!type || !chosen) {
      throw new UsageError(`${type ?? 'an event'} cannot be triggered; possible: ${Object.keys(TRIGGERS).join(', ')}`);
    }
    const result = await chosen.run(context, paymentsClient(context));
    const tx = result.transaction as { id: string; status: string };
    show(
      context,
      { event: type, ...result },
      () => `Triggered ${type}: transaction ${tx.id}${result.dispute ? `, dispute ${(result.dispute as { id: string }).id}` : ''}`,
    );
  },
};

export const COMMANDS: Command[] = [
  login,
  transactionsCreate,
  transactionsGet,
  transactionsList,
  batchesCreate,
  batchesGet,
  disputesOpen,
  disputesGet,
  checkoutCreate,
  workspacesList,
  listen,
  trigger,
];

/** One line per failure: the API's code and message, and its request id to quote to support. */
export function describeError(error: unknown): string {
  if (error instanceof HoldfastError) {
    const where = error.requestId ? ` (request ${error.requestId})` : '';
    const fields =
      (error.details?.errors as { field: string; reason: string }[] | undefined)?.map((e) => `\n  ${e.field}: ${e.reason}`).join('') ?? '';
    return `Error: ${error.code}${error.statusCode ? ` ${error.statusCode}` : ''}: ${error.message}${where}${fields}`;
  }
  return `Error: ${(error as Error).message ?? String(error)}`;
}
