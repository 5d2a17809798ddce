import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  type EventType,
  HoldfastError,
  newWebhookSecret,
  PaymentsClient,
  type StreamStatus,
  signWebhook,
  type WebhookDeliveryLog,
  WorkspaceClient,
} from '@holdfast/sdk';
import { type EscrowTerms, lockEscrow, rescindEscrow, revertedTransfer, senderAccount } from './chain.js';
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
  /** Positional arguments in commander's syntax (`[id]`, `<event>`). */
  arguments?: string;
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; description?: string }>;
  run: (context: Context) => Promise<void>;
}

/** The version of this package (its package.json, next to dist/ as published). */
export const CLI_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** A usage mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

const TRANSACTION_COLUMNS = ['id', 'status', 'amount', 'currency', 'fromAddress', 'toAddress', 'blockchainNetwork', 'createdAt'];

const text = (flags: Flags, name: string): string | undefined => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
function required(flags: Flags, name: string): string {
  const value = text(flags, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}
/** A flag holding a JSON object (`--metadata '{"order":"A1"}'`). */
function jsonObject(flags: Flags, name: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text(flags, name) as string);
  } catch {
    throw new UsageError(`--${name} must be a JSON object`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--${name} must be a JSON object`);
  return value as Record<string, unknown>;
}

const SIGNER_TYPES = ['external_wallet', 'custodial'] as const;
function signerType(flags: Flags): (typeof SIGNER_TYPES)[number] {
  const value = text(flags, 'signer-type') as (typeof SIGNER_TYPES)[number];
  if (!SIGNER_TYPES.includes(value)) throw new UsageError(`--signer-type must be one of ${SIGNER_TYPES.join(', ')}`);
  return value;
}

/** `--limit N`: a positive integer, `fallback` when absent. */
function limitOf(flags: Flags, fallback = 20): number {
  const limit = Number(text(flags, 'limit') ?? fallback);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  return limit;
}

/** The first `limit` items of a list, walking its pages. */
async function firstOf<T>(list: AsyncIterable<T>, limit: number): Promise<T[]> {
  const rows: T[] = [];
  if (limit < 1) return rows;
  for await (const item of list) {
    rows.push(item);
    if (rows.length >= limit) break;
  }
  return rows;
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
    'holdfast transactions create --from ADDRESS --to ADDRESS --amount N [--currency USDC] [--network base-sepolia] [--orchestration platform|raw] [--signer-type external_wallet|custodial] [--idempotency-key KEY] [--metadata JSON]',
  options: {
    from: { type: 'string', description: "the sender's address" },
    to: { type: 'string', description: "the receiver's address" },
    amount: { type: 'string', description: 'the amount, in the currency' },
    currency: { type: 'string', description: 'USDC (default), USDT, MockUSDC…' },
    network: { type: 'string', description: 'the blockchain network (default: the environment’s base network)' },
    orchestration: { type: 'string', description: 'platform (escrow, the default) or raw' },
    'signer-type': { type: 'string', description: 'who signs: external_wallet (the sender’s own wallet) or custodial' },
    'idempotency-key': { type: 'string', description: 'the Idempotency-Key (default: a fresh one)' },
    metadata: { type: 'string', description: 'a JSON object stored with the transaction' },
  },
  run: async (context) => {
    const { flags } = context;
    const amount = Number(required(flags, 'amount'));
    if (!Number.isFinite(amount)) throw new UsageError('--amount must be a number');
    const body = {
      fromAddress: required(flags, 'from'),
      toAddress: required(flags, 'to'),
      amount,
      ...(text(flags, 'currency') ? { currency: text(flags, 'currency') } : {}),
      ...(text(flags, 'network') ? { blockchainNetwork: text(flags, 'network') } : {}),
      ...(text(flags, 'orchestration') ? { orchestrationType: text(flags, 'orchestration') } : {}),
      ...(text(flags, 'signer-type') ? { signerType: signerType(flags) } : {}),
      ...(text(flags, 'metadata') ? { metadata: jsonObject(flags, 'metadata') } : {}),
    } as Parameters<PaymentsClient['transactions']['create']>[0];
    const key = text(flags, 'idempotency-key');
    const created = await paymentsClient(context).transactions.create(body, key ? { idempotencyKey: key } : {});
    show(context, created, () => record(created, [...TRANSACTION_COLUMNS, 'orchestrationType', 'idempotencyKey', 'holdDeadline']));
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
      ...(text(flags, 'metadata') ? { metadata: jsonObject(flags, 'metadata') } : {}),
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
    arguments: '[id]',
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
  (tx) => record(tx, [...TRANSACTION_COLUMNS, 'orchestrationType', 'txHash', 'updatedAt']),
);

const transactionsList: Command = {
  name: 'transactions list',
  summary: 'List transactions, newest first',
  usage: 'holdfast transactions list [--status STATUS] [--from ADDRESS] [--to ADDRESS] [--limit N (default 20)]',
  options: { status: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, limit: { type: 'string' } },
  run: async (context) => {
    const { flags } = context;
    const limit = limitOf(flags);
    const filters = {
      ...(text(flags, 'status') ? { status: text(flags, 'status') } : {}),
      ...(text(flags, 'from') ? { fromAddress: text(flags, 'from') } : {}),
      ...(text(flags, 'to') ? { toAddress: text(flags, 'to') } : {}),
      limit: Math.min(limit, 100),
    } as Parameters<PaymentsClient['transactions']['list']>[0];
    const rows = await firstOf(paymentsClient(context).transactions.list(filters), limit);
    show(context, rows, () => (rows.length ? table(rows, TRANSACTION_COLUMNS) : 'No transactions.'));
  },
};

const batchesCreate: Command = {
  name: 'batches create',
  summary: 'Create a batch: one sender, one leg per --leg ADDRESS:AMOUNT',
  usage:
    'holdfast batches create --from ADDRESS --leg ADDRESS:AMOUNT [--leg ...] [--currency USDC] [--network base-sepolia] [--signer-type external_wallet] [--idempotency-key KEY]',
  options: {
    from: { type: 'string' },
    leg: { type: 'string', multiple: true, description: 'ADDRESS:AMOUNT, once per recipient' },
    'signer-type': { type: 'string', description: 'external_wallet (the default; custodial batches are refused by the API)' },
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
      signerType: text(flags, 'signer-type') ? signerType(flags) : 'external_wallet',
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

const batchesList: Command = {
  name: 'batches list',
  summary: 'List batches, newest first',
  usage: 'holdfast batches list [--status STATUS] [--limit N (default 20)]',
  options: { status: { type: 'string' }, limit: { type: 'string', description: 'at most this many (default 20; walks pages)' } },
  run: async (context) => {
    const { flags } = context;
    const limit = limitOf(flags);
    const filters = {
      ...(text(flags, 'status') ? { status: text(flags, 'status') } : {}),
      limit: Math.min(limit, 100),
    } as Parameters<PaymentsClient['batches']['list']>[0];
    const rows = await firstOf(paymentsClient(context).batches.list(filters), limit);
    show(context, rows, () =>
      rows.length ? table(rows, ['id', 'status', 'fromAddress', 'currency', 'blockchainNetwork', 'createdAt']) : 'No batches.',
    );
  },
};

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

const disputesList: Command = {
  name: 'disputes list',
  summary: 'List disputes, newest first',
  usage: 'holdfast disputes list [--status open|under_review|escalated|resolved…] [--transaction ID] [--limit N (default 20, at most 100)]',
  options: { status: { type: 'string' }, transaction: { type: 'string' }, limit: { type: 'string' } },
  run: async (context) => {
    const { flags } = context;
    const limit = limitOf(flags);
    const filters = {
      ...(text(flags, 'status') ? { status: text(flags, 'status') } : {}),
      ...(text(flags, 'transaction') ? { transactionId: text(flags, 'transaction') } : {}),
      limit: Math.min(limit, 100),
    } as Parameters<PaymentsClient['disputes']['list']>[0];
    const rows = await firstOf(paymentsClient(context).disputes.list(filters), limit);
    show(context, rows, () =>
      rows.length
        ? table(
            rows,
            DISPUTE_KEYS.filter((k) => k !== 'reason'),
          )
        : 'No disputes.',
    );
  },
};

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

/** `--workspace ID`, else the signed-in user's own workspace. */
async function workspaceOf(context: Context, client: WorkspaceClient): Promise<string> {
  return text(context.flags, 'workspace') ?? (await client.workspaces.mine()).id;
}

/** `--webhook ID`, else every subscription of the workspace. */
async function webhooksOf(context: Context, client: WorkspaceClient, workspaceId: string): Promise<string[]> {
  const chosen = text(context.flags, 'webhook');
  if (chosen) return [chosen];
  return (await client.webhooks.list(workspaceId)).map((w) => w.id);
}

const WORKSPACE_OPTIONS = {
  workspace: { type: 'string', description: 'the workspace (default: your own)' },
  webhook: { type: 'string', description: 'one webhook subscription (default: every one of the workspace)' },
} as const;

/** A delivery log's row as the commands show it. */
const attemptRow = (log: WebhookDeliveryLog) => ({
  at: log.createdAt,
  eventType: log.eventType,
  eventId: log.eventId,
  deliveryId: log.deliveryId,
  webhook: log.webhookSubscriptionId,
  attempt: log.deliveryAttempt,
  status: log.statusCode ?? 'no answer',
  ok: log.success,
  ms: log.responseTime,
  error: log.errorMessage ?? '',
});

const eventsList: Command = {
  name: 'events list',
  summary: "List the events delivered to your workspace's webhooks (one row per delivery, its last attempt), newest first",
  usage:
    'holdfast events list [--workspace ID] [--webhook ID] [--failed] [--limit N (default 20)]  (Workspace API login)\n' +
    'The DELIVERYID column is what `holdfast events resend` takes.',
  options: {
    ...WORKSPACE_OPTIONS,
    failed: { type: 'boolean', description: 'only deliveries whose last attempt failed' },
    limit: { type: 'string' },
  },
  run: async (context) => {
    const limit = limitOf(context.flags);
    const client = workspaceClient(context);
    const workspaceId = await workspaceOf(context, client);
    const latest = new Map<string, WebhookDeliveryLog>();
    for (const webhookId of await webhooksOf(context, client, workspaceId)) {
      // Attempts come newest first: the first one seen of a delivery is its last attempt.
      for await (const log of client.webhooks.deliveryLogs(workspaceId, webhookId, { limit: 100 })) {
        if (!latest.has(log.deliveryId)) latest.set(log.deliveryId, log);
        if (latest.size >= limit * 4) break;
      }
    }
    const rows = [...latest.values()]
      .filter((log) => !context.flags.failed || !log.success)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit);
    show(context, rows, () =>
      rows.length
        ? table(rows.map(attemptRow), ['at', 'eventType', 'eventId', 'deliveryId', 'attempt', 'status', 'ok'])
        : 'No deliveries (subscribe a URL with a webhook first).',
    );
  },
};

const eventsResend: Command = {
  name: 'events resend',
  summary: 'Deliver an event to its webhook again now (same delivery id, a fresh retry schedule)',
  usage: 'holdfast events resend DELIVERY_ID [--workspace ID] [--webhook ID]  (a deliveryId of `holdfast events list`)',
  arguments: '[deliveryId]',
  options: { ...WORKSPACE_OPTIONS },
  run: async (context) => {
    const deliveryId = context.args[0];
    if (!deliveryId) throw new UsageError('give the delivery id (the DELIVERYID column of holdfast events list)');
    const client = workspaceClient(context);
    const workspaceId = await workspaceOf(context, client);
    let webhookId = text(context.flags, 'webhook');
    if (!webhookId) {
      // The subscription whose logs hold the delivery.
      search: for (const candidate of await webhooksOf(context, client, workspaceId)) {
        for await (const log of client.webhooks.deliveryLogs(workspaceId, candidate, { limit: 100 })) {
          if (log.deliveryId === deliveryId) {
            webhookId = candidate;
            break search;
          }
        }
      }
    }
    if (!webhookId) throw new UsageError(`no webhook of workspace ${workspaceId} has delivery ${deliveryId}; give --webhook`);
    const delivery = await client.webhooks.resend(workspaceId, webhookId, deliveryId);
    show(
      context,
      delivery,
      () =>
        `Queued delivery ${delivery.id} (${delivery.eventId}) for an attempt now\n${record(delivery, ['status', 'attempts', 'nextAttemptAt'])}`,
    );
  },
};

const logsTail: Command = {
  name: 'logs tail',
  summary: "Follow the delivery attempts to your workspace's webhooks as they happen (status, time, error); Ctrl-C stops",
  usage: 'holdfast logs tail [--workspace ID] [--webhook ID] [--failures-only] [--interval SECONDS (default 2)]  (Workspace API login)',
  options: {
    ...WORKSPACE_OPTIONS,
    'failures-only': { type: 'boolean', description: 'only failed attempts' },
    interval: { type: 'string', description: 'seconds between two looks (default 2)' },
  },
  run: async (context) => {
    const { io, signal } = context;
    const seconds = Number(text(context.flags, 'interval') ?? 2);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError('--interval must be a positive number of seconds');
    const client = workspaceClient(context);
    const workspaceId = await workspaceOf(context, client);
    const query = context.flags['failures-only'] ? { failuresOnly: true, limit: 100 } : { limit: 100 };
    const seen = new Set<string>();
    let first = true;
    while (!signal.aborted) {
      const fresh: WebhookDeliveryLog[] = [];
      for (const webhookId of await webhooksOf(context, client, workspaceId)) {
        const page = await client.webhooks.deliveryLogs(workspaceId, webhookId, query).firstPage();
        for (const log of page.data) if (!seen.has(log.id)) fresh.push(log);
      }
      for (const log of fresh) seen.add(log.id);
      // What was there before the tail started is history: only what comes after is shown.
      if (first) {
        first = false;
        if (context.json) io.out(JSON.stringify({ ready: true, workspaceId }));
        else io.err(`Tailing the webhook deliveries of workspace ${workspaceId} (Ctrl-C stops)…`);
      } else {
        for (const log of fresh.sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
          const row = attemptRow(log);
          if (context.json) io.out(JSON.stringify(log));
          else
            io.out(
              `${row.at}  ${row.eventType.padEnd(26)} ${row.eventId}  attempt ${row.attempt}  → ${row.status} (${row.ms} ms)${row.error ? `  ${row.error}` : ''}`,
            );
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  },
};

/** `--forward-to`: a URL, or `host:port[/path]` (http:// is assumed, as the Stripe CLI does). */
export function forwardTarget(value: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value.replace(/^:/, '127.0.0.1:')}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--forward-to ${value}: expected http(s)://host:port/path or host:port`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol)) throw new UsageError('--forward-to must be an http(s) URL or host:port');
  return parsed.toString();
}

/** Forward attempts per event: a refused connection or a 5xx/429 answer is tried again (after 0.5 s, then 1 s). */
const FORWARD_ATTEMPTS = 3;

const listen: Command = {
  name: 'listen',
  summary: "Receive your platform's events live and forward each, signed like a real delivery, to a local URL",
  usage:
    'holdfast listen --forward-to http://127.0.0.1:PORT/path|localhost:PORT [--events transaction.created,...]\n' +
    'Signs with a local secret (whsec_…) kept in the profile and printed at start: verify with verifyWebhook(body, headers, secret).\n' +
    `A forward that fails (no connection, a 5xx or 429 answer) is tried ${FORWARD_ATTEMPTS} times in all.`,
  options: {
    'forward-to': { type: 'string', description: 'where to POST each event: a URL or host:port' },
    events: { type: 'string', description: 'comma-separated event types (default: every one the token may read)' },
  },
  run: async (context) => {
    const { io, flags } = context;
    const target = forwardTarget(required(flags, 'forward-to'));
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
      const deliveryId = randomUUID();
      const started = Date.now();
      let status: number | string = 'not sent';
      let attempt = 0;
      while (attempt < FORWARD_ATTEMPTS && !context.signal.aborted) {
        attempt += 1;
        // Every attempt of one event carries the same delivery id (a receiver drops a repeat), signed anew.
        const { headers } = signWebhook(body, secret, { eventType: event.type, deliveryId });
        try {
          const answer = await fetch(target, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
          status = answer.status;
          await answer.body?.cancel();
        } catch (error) {
          status = `failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
        }
        const retryable = typeof status === 'string' || status >= 500 || status === 429;
        if (!retryable || attempt >= FORWARD_ATTEMPTS) break;
        if (!context.json) io.err(`${event.id}: ${status}; trying again…`);
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1)));
      }
      const ms = Date.now() - started;
      const tries = attempt > 1 ? `, ${attempt} attempts` : '';
      if (context.json) io.out(JSON.stringify({ eventId: event.id, type: event.type, deliveryId, status, attempts: attempt, ms }));
      else io.out(`${new Date().toISOString()}  ${event.type.padEnd(22)} ${event.id}  → ${status} (${ms} ms${tries})`);
    }
  },
};

interface Trigger {
  how: string;
  /** The scopes the profile's client needs for every step (checked before anything is done). */
  scopes: string[];
  run: (context: Context, client: PaymentsClient) => Promise<Record<string, unknown>>;
}

/**
 * `--override [transaction:|dispute:]PATH=VALUE`, repeatable: a field of the body `trigger` sends
 * (`amount=2.5`, `metadata.order=A1`, `dispute:reason=late`). VALUE is JSON when it parses (a
 * number, true, an object), else the text as given.
 */
export function overridesOf(flags: Flags): { transaction: Record<string, unknown>; dispute: Record<string, unknown> } {
  const out = { transaction: {} as Record<string, unknown>, dispute: {} as Record<string, unknown> };
  const given = flags.override;
  for (const entry of Array.isArray(given) ? given : typeof given === 'string' ? [given] : []) {
    const text = String(entry);
    const eq = text.indexOf('=');
    const match = /^(?:(transaction|dispute):)?([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)$/.exec(eq > 0 ? text.slice(0, eq) : '');
    if (!match)
      throw new UsageError(`--override ${text}: expected [transaction:|dispute:]PATH=VALUE, e.g. amount=2.5 or metadata.order=A1`);
    const raw = text.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // text as given
    }
    let target = out[(match[1] as 'transaction' | 'dispute' | undefined) ?? 'transaction'];
    const path = (match[2] as string).split('.');
    for (const key of path.slice(0, -1)) {
      if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    target[path.at(-1) as string] = value;
  }
  return out;
}

/** `base` with the overrides written over it (nested objects merged). */
function withOverrides<T extends object>(base: T, overrides: Record<string, unknown>): T {
  const merged = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(overrides)) {
    const current = merged[key];
    merged[key] =
      typeof value === 'object' && value !== null && !Array.isArray(value) && typeof current === 'object' && current !== null
        ? withOverrides(current as object, value as Record<string, unknown>)
        : value;
  }
  return merged as T;
}

type NewTransaction = Awaited<ReturnType<PaymentsClient['transactions']['create']>>;

/** A platform transaction whose escrow the sender's wallet locked on chain, shown `escrowed` by Payments. */
async function escrowedTransaction(context: Context, client: PaymentsClient): Promise<NewTransaction> {
  const { io } = context;
  const { account, rpcUrl } = senderOnChain(context);
  const tx = await withProgress(io, `Creating a transaction from ${account.address}`, () =>
    client.transactions.create(
      withOverrides(
        { fromAddress: account.address, toAddress: randomAddress(), amount: 1, currency: 'MockUSDC', orchestrationType: 'platform' },
        overridesOf(context.flags).transaction,
      ),
    ),
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
 * A raw transaction of 1 MockUSDC from the sender, then the sender's own transfer of it, sent with
 * too little gas so that it reverts, submitted as its hash: Payments sees the revert and fails it.
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
    client.transactions.create(
      withOverrides(
        { fromAddress: account.address, toAddress: randomAddress(), amount: 1, currency: 'MockUSDC', orchestrationType: 'raw' },
        overridesOf(context.flags).transaction,
      ),
    ),
  );
  const hash = await withProgress(context.io, 'Sending its transfer with too little gas (it reverts on chain)', () =>
    revertedTransfer({ rpcUrl, account, tokenAddress, toAddress: tx.toAddress, amount: tx.amount }),
  );
  const answer = await withProgress(context.io, 'Submitting its hash to Payments', () =>
    untilConfirmed(() => client.transactions.submitHash(tx.id, { txHash: hash })),
  );
  return { transaction: answer.transaction };
}

async function openedDispute(context: Context, client: PaymentsClient) {
  const tx = await escrowedTransaction(context, client);
  const dispute = await withProgress(context.io, 'Opening a dispute', () =>
    client.disputes.open(
      withOverrides({ transactionId: tx.id, initiatedBy: 'sender', reason: 'holdfast trigger' }, overridesOf(context.flags).dispute),
    ),
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

/**
 * An escrowed transaction whose release the platform attests, then the test clock ends its hold
 * (POST /api/v2/test_helpers/transactions/{id}/advance_hold): the attester releases the escrow on
 * chain and the chain's event completes it. No dispute is involved.
 */
async function completedTransaction(context: Context, client: PaymentsClient) {
  const tx = await escrowedTransaction(context, client);
  await withProgress(context.io, 'Attesting the release', () => client.transactions.attestRelease(tx.id));
  await withProgress(context.io, 'Ending the hold with the test clock', () => client.testHelpers.advanceHold(tx.id));
  const completed = await withProgress(context.io, 'Waiting for the release on chain', async () => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const now = await client.transactions.get(tx.id);
      if (now.status === 'completed') return now;
      if (Date.now() > deadline)
        throw new Error(`transaction ${tx.id} is still ${now.status} after two minutes (is the chain-indexer running?)`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });
  return { transaction: completed };
}

const CHAIN = 'a platform transaction whose escrow the sender wallet locks on the local chain';
/** The scopes of each kind of step. */
const LOCK = ['read:transactions', 'write:transactions', 'move:transactions'];
const DISPUTE = [...LOCK, 'read:disputes', 'write:disputes'];

/** The client scopes every trigger needs together: what docs/cli.md tells to create the client with. */
export const TRIGGER_SCOPES = [...DISPUTE, 'submit:evidence', 'reverse:transactions'];

const TRIGGERS: Record<string, Trigger> = {
  'transaction.created': {
    scopes: ['move:transactions'],
    how: 'creates a transaction (raw orchestration, random addresses, 1 USDC)',
    run: async (context, client) => ({
      transaction: await withProgress(context.io, 'Creating a transaction', () =>
        client.transactions.create(
          withOverrides(
            { fromAddress: randomAddress(), toAddress: randomAddress(), amount: 1, currency: 'USDC', orchestrationType: 'raw' },
            overridesOf(context.flags).transaction,
          ),
        ),
      ),
    }),
  },
  'transaction.escrowed': {
    scopes: LOCK,
    how: CHAIN,
    run: async (context, client) => ({ transaction: await escrowedTransaction(context, client) }),
  },
  'dispute.created': { scopes: DISPUTE, how: `${CHAIN}, then a dispute on it`, run: openedDispute },
  'evidence.submitted': {
    scopes: [...DISPUTE, 'submit:evidence'],
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
    scopes: DISPUTE,
    how: 'a dispute, then its escalation',
    run: async (context, client) => {
      const opened = await openedDispute(context, client);
      return { ...opened, dispute: await withProgress(context.io, 'Escalating it', () => client.disputes.escalate(opened.dispute.id)) };
    },
  },
  'dispute.resolved': {
    scopes: DISPUTE,
    how: 'a dispute, then resolved for the sender (also transaction.refunded)',
    run: resolvedFor('favor_sender'),
  },
  'transaction.refunded': { scopes: DISPUTE, how: 'a dispute resolved for the sender', run: resolvedFor('favor_sender') },
  'transaction.completed': {
    scopes: LOCK,
    how: `${CHAIN}, its release attested, then the test clock ends its hold (the attester releases it; no dispute)`,
    run: completedTransaction,
  },
  'transaction.rescinded': {
    scopes: [...LOCK, 'reverse:transactions'],
    how: `${CHAIN}, then the sender's own rescind on chain`,
    run: rescindedTransaction,
  },
  'transaction.failed': {
    scopes: LOCK,
    how: 'a raw MockUSDC transaction whose transfer reverts on chain (needs --token-address)',
    run: failedTransaction,
  },
};

const trigger: Command = {
  name: 'trigger',
  summary: 'Make an event happen for real on the profile’s platform (transaction.created, transaction.escrowed, dispute.created…)',
  usage: `holdfast trigger EVENT [--override [transaction:|dispute:]PATH=VALUE ...] [--sender-key 0x… (default: anvil's dev account #4)] [--rpc-url URL (default http://127.0.0.1:8545)] [--token-address 0x… (transaction.failed: the MockUSDC)]\nEvents:\n${Object.entries(
    TRIGGERS,
  )
    .map(([type, t]) => `  ${type.padEnd(22)} ${t.how}`)
    .join(
      '\n',
    )}\nOnly transaction.created needs no chain; the others use a local chain's test wallet (lock an escrow, rescind it, or send a transfer that reverts).\nThe client needs the scopes ${TRIGGER_SCOPES.join(' ')}: each trigger checks those it needs before its first step.`,
  arguments: '[event]',
  options: {
    'sender-key': { type: 'string', description: "the sender wallet's private key (default: anvil's dev account #4)" },
    'rpc-url': { type: 'string', description: 'the chain (default http://127.0.0.1:8545)' },
    'token-address': { type: 'string', description: 'transaction.failed: the MockUSDC address' },
    override: {
      type: 'string',
      multiple: true,
      description:
        'a field of what trigger sends: [transaction:|dispute:]PATH=VALUE (amount=2.5, metadata.order=A1, dispute:reason=late); repeatable',
    },
  },
  run: async (context) => {
    const type = context.args[0];
    const chosen = type ? TRIGGERS[type] : undefined;
    if (!type || !chosen) {
      throw new UsageError(`${type ?? 'an event'} cannot be triggered; possible: ${Object.keys(TRIGGERS).join(', ')}`);
    }
    overridesOf(context.flags);
    const client = paymentsClient(context);
    // Every scope the steps need, before the first step: nothing is locked on chain for a client that cannot finish.
    const granted = new Set((await client.oauth.token()).scope.split(' '));
    const missing = chosen.scopes.filter((scope) => !granted.has(scope));
    if (missing.length > 0) {
      throw new Error(
        `trigger ${type} needs the client scopes ${missing.join(', ')} (it has ${[...granted].join(' ') || 'none'}); create the client with ${TRIGGER_SCOPES.join(' ')} (docs/cli.md)`,
      );
    }
    const result = await chosen.run(context, client);
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
  batchesList,
  disputesOpen,
  disputesGet,
  disputesList,
  checkoutCreate,
  workspacesList,
  eventsList,
  eventsResend,
  logsTail,
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
