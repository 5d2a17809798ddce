// The smoke start's payment: the product path across the real processes. A platform and an OAuth client
// are made with the bootstrap key, a platform transaction is created through the Payments API v2, the
// sender's wallet (scripts/sign-escrow.ts, as a user runs it) approves and calls createEscrow from the
// answer's `escrow`, the chain-indexer publishes the EscrowCreated log on the CHAIN stream, and payments'
// CHAIN consumer moves the transaction to `escrowed`, which GET must show with the escrow and the hash.
// The platform's event stream (GET /api/v2/events/stream), opened before the create, must deliver the
// transaction's `transaction.created` and `transaction.escrowed`: payments reads the EVENTS stream under
// its own NATS user there, so this is the stream's check against the real grants.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mnemonicToAccount } from 'viem/accounts';

const MNEMONIC = 'test test test test test test test test test test test junk';
/** The wallets: anvil dev accounts #4 (sender, scripts/sign-escrow.ts's default) and #5; the stack signs with #7, #8 and #9. */
export const SMOKE_SENDER = mnemonicToAccount(MNEMONIC, { addressIndex: 4 }).address;
export const SMOKE_RECEIVER = mnemonicToAccount(MNEMONIC, { addressIndex: 5 }).address;

type Answer = { status: number; body: Record<string, unknown> & { data?: Record<string, unknown> } };

export async function api(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let parsed: Answer['body'] = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}

export function expectStatus(what: string, answer: Answer, status: number): Answer['body'] {
  if (answer.status !== status) {
    throw new Error(`Payments API: ${what} answered ${answer.status} (expected ${status}): ${JSON.stringify(answer.body).slice(0, 500)}`);
  }
  return answer.body;
}

/**
 * A new platform (made with the bootstrap key, its API key with `scopes`) and an OAuth client for it; the
 * client's v2 access token with `move:transactions` and `read:transactions`, as docs/try-a-payment.md
 * makes them by hand.
 */
export async function createPlatform(
  base: string,
  adminKey: string,
  name: string,
  scopes = ['read:transactions', 'write:transactions'],
): Promise<{ platformId: string; apiKey: string; accessToken: string }> {
  const admin = { 'x-api-key': adminKey };
  const platform = expectStatus(
    'POST /api/v1/auth/api-key (a platform, with the bootstrap key)',
    await api(base, 'POST', '/api/v1/auth/api-key', admin, { name, scopes }),
    201,
  );
  const client = expectStatus(
    'POST /api/v1/oauth/clients',
    await api(base, 'POST', '/api/v1/oauth/clients', admin, {
      name: `${name} client`,
      scopes: ['read:transactions', 'move:transactions'],
      platformId: platform.platformId,
    }),
    201,
  );
  const token = expectStatus(
    'POST /api/v2/oauth/token',
    await api(
      base,
      'POST',
      '/api/v2/oauth/token',
      {},
      { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
    ),
    200,
  );
  return { platformId: platform.platformId as string, apiKey: platform.apiKey as string, accessToken: token.data?.access_token as string };
}

/** POST /api/v2/transactions with a new Idempotency-Key: the created transaction (201). */
export async function postTransaction(
  base: string,
  bearer: Record<string, string>,
  body: Record<string, unknown>,
): Promise<Answer['body']> {
  return expectStatus(
    'POST /api/v2/transactions',
    await api(base, 'POST', '/api/v2/transactions', { ...bearer, 'idempotency-key': randomUUID() }, body),
    201,
  );
}

/** Runs scripts/sign-escrow.ts with the transaction on stdin; the createEscrow hash it printed. */
function signEscrow(root: string, transaction: unknown, rpcUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'scripts', 'sign-escrow.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH, HOLDFAST_RPC_URL: rpcUrl },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const hash = /^createEscrow\s+(0x[0-9a-f]{64})/m.exec(out)?.[1];
      if (code === 0 && hash) resolve(hash);
      else reject(new Error(`smoke payment: scripts/sign-escrow.ts exited with ${code}: ${out.trim()}`));
    });
    child.stdin.end(JSON.stringify(transaction));
  });
}

/** Whether the indexer published an escrow.created for the transaction (to say which half failed). */
async function indexerPublished(options: { natsUrl: string; prefix: string; network: string; transactionId: string }): Promise<boolean> {
  const nc = await connect({ servers: options.natsUrl.split(','), name: 'holdfast-smoke' });
  try {
    const jsm = await jetstreamManager(nc);
    const message = await jsm.streams
      .getMessage(`${options.prefix}CHAIN`.replaceAll('.', '_'), {
        last_by_subj: `${options.prefix}chain.${options.network}.escrow.created`,
      })
      .catch(() => null);
    return message?.json<{ transactionId?: string }>().transactionId === options.transactionId;
  } finally {
    await nc.close();
  }
}

/** The platform's event stream, open: the `{type, transaction id}` of each event as it arrives. */
async function openEventStream(base: string, headers: Record<string, string>) {
  const controller = new AbortController();
  // Bounded until the answer's head arrives; the stream itself stays open until close().
  const opening = setTimeout(() => controller.abort(new Error('no answer within 10 s')), 10_000);
  const res = await fetch(`${base}/api/v2/events/stream?types=transaction.created,transaction.escrowed`, {
    headers: { ...headers, accept: 'text/event-stream' },
    signal: controller.signal,
  }).finally(() => clearTimeout(opening));
  if (res.status !== 200 || !res.body) {
    throw new Error(`Payments API: GET /api/v2/events/stream answered ${res.status} (expected 200): ${(await res.text()).slice(0, 500)}`);
  }
  const seen: { type: string; transactionId: string }[] = [];
  let ended: unknown;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data:'));
        buffer = buffer.slice(end + 2);
        if (!data) continue;
        const event = JSON.parse(data.slice(5)) as { type: string; data: { transaction?: { id?: string } } };
        seen.push({ type: event.type, transactionId: event.data.transaction?.id ?? '' });
      }
    }
  })().catch((error) => {
    ended = error;
  });
  return {
    /** Resolves once both events of the transaction arrived; throws naming what is missing after `timeoutMs`. */
    expect: async (transactionId: string, timeoutMs: number) => {
      const wanted = ['transaction.created', 'transaction.escrowed'];
      const deadline = Date.now() + timeoutMs;
      const missing = () => wanted.filter((type) => !seen.some((e) => e.type === type && e.transactionId === transactionId));
      while (missing().length > 0 && Date.now() < deadline && ended === undefined) await new Promise((r) => setTimeout(r, 50));
      if (missing().length > 0) {
        throw new Error(
          `smoke payment: the event stream did not deliver ${missing().join(' and ')} of transaction ${transactionId}` +
            ` (the stream ${ended === undefined ? 'stayed open' : `ended: ${String(ended)}`}; payments' NATS grants on the EVENTS stream, packages/messaging/src/permissions.ts?)`,
        );
      }
    },
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

export async function smokePayment(options: {
  root: string;
  paymentsUrl: string;
  adminKey: string;
  rpcUrl: string;
  natsUrl: string;
  prefix: string;
  network: string;
  timeoutMs?: number;
}): Promise<{ transactionId: string; txHash: string }> {
  const base = options.paymentsUrl;
  const bearer = { authorization: `Bearer ${(await createPlatform(base, options.adminKey, 'Smoke')).accessToken}` };
  const stream = await openEventStream(base, bearer);
  try {
    return await createAndEscrow(options, bearer, stream);
  } finally {
    await stream.close();
  }
}

async function createAndEscrow(
  options: Parameters<typeof smokePayment>[0],
  bearer: Record<string, string>,
  stream: Awaited<ReturnType<typeof openEventStream>>,
): Promise<{ transactionId: string; txHash: string }> {
  const base = options.paymentsUrl;
  const created = await postTransaction(base, bearer, {
    fromAddress: SMOKE_SENDER,
    toAddress: SMOKE_RECEIVER,
    amount: '12.5',
    signerType: 'external_wallet',
  });
  const id = created.id as string;
  const escrow = created.escrow as { contractAddress?: string } | undefined;
  if (!escrow?.contractAddress) throw new Error(`smoke payment: the created transaction has no escrow to sign: ${JSON.stringify(created)}`);

  const txHash = await signEscrow(options.root, created, options.rpcUrl);

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last: Answer['body'] = created;
  while (Date.now() < deadline) {
    last = expectStatus(`GET /api/v2/transactions/${id}`, await api(base, 'GET', `/api/v2/transactions/${id}`, bearer), 200);
    if (last.status === 'escrowed') {
      if (String(last.escrowAddress).toLowerCase() !== escrow.contractAddress.toLowerCase() || last.txHash !== txHash) {
        throw new Error(
          `smoke payment: transaction ${id} is escrowed but shows escrowAddress ${last.escrowAddress} and txHash ${last.txHash}, expected ${escrow.contractAddress} and ${txHash}`,
        );
      }
      await stream.expect(id, 10_000);
      return { transactionId: id, txHash };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = Math.round((options.timeoutMs ?? 30_000) / 1000);
  const published = await indexerPublished({ ...options, transactionId: id }).catch(() => false);
  throw new Error(
    published
      ? `smoke payment: the indexer published escrow.created for transaction ${id} (createEscrow ${txHash}), but payments still shows it ${last.status} after ${seconds} s: its CHAIN consumer did not apply the event (see payments-service's log above)`
      : `smoke payment: createEscrow ${txHash} for transaction ${id} was mined, but the indexer did not publish escrow.created within ${seconds} s (see chain-indexer's log above); payments shows ${last.status}`,
  );
}
