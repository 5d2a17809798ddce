// The chaos suite's steady load and its bookkeeping: transaction creations with Idempotency-Keys
// through the Payments API v2, escrows locked on anvil by the sender's wallet, and a webhook
// receiver recording every delivery. What it records is what verify.ts checks.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { evmChain, holdfastEscrowAbi, mockUsdcAbi } from '@holdfast/escrow';
import { type Address, createPublicClient, createWalletClient, type Hex, http, maxUint256 } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { api, createPlatform, expectStatus, SMOKE_RECEIVER } from '../lib/stack/smoke-payment.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';
/** anvil dev account #4 sends the escrowed payments (the stack signs with #7, #8 and #9). */
const ESCROW_SENDER = mnemonicToAccount(MNEMONIC, { addressIndex: 4 });

/** The `escrow` object of a created transaction: what the sender's wallet signs. */
interface EscrowTerms {
  contractAddress: Address;
  tokenAddress: Address;
  attester: Address;
  onchainId: Hex;
  amountBaseUnits: string;
  holdDeadline: number;
}

/** One creation as the client saw it. `status` 0: no HTTP answer (`error` says why). */
export interface Creation {
  key: string;
  body: Record<string, unknown>;
  at: number;
  /** When the answer (or the failure) arrived. */
  answeredAt?: number;
  status: number;
  error?: string;
  id?: string;
  /** An escrow for it is (to be) locked on chain. */
  escrowSender: boolean;
}

export interface Received {
  /** Deliveries per event id (more than 1: a duplicate). */
  byEvent: Map<string, number>;
  types: Map<string, string>;
  total: number;
}

export interface Platform {
  platformId: string;
  apiKey: string;
  bearer: Record<string, string>;
}

/** A platform with webhook and transaction scopes, a v2 token, and a subscription to every transaction.* event. */
export async function setUpPlatform(paymentsUrl: string, adminKey: string, receiverUrl: string): Promise<Platform> {
  const { platformId, apiKey, accessToken } = await createPlatform(paymentsUrl, adminKey, `chaos-${randomUUID().slice(0, 8)}`, [
    'read:transactions',
    'write:transactions',
    'read:webhooks',
    'write:webhooks',
  ]);
  const types = await api(paymentsUrl, 'GET', '/api/v1/webhooks/events/types', { 'x-api-key': apiKey });
  const eventTypes = [...new Set(JSON.stringify(types.body).match(/"transaction\.[a-z_.-]+"/g) ?? [])].map((t) => JSON.parse(t) as string);
  if (eventTypes.length === 0) throw new Error(`no transaction.* event types in ${JSON.stringify(types.body).slice(0, 300)}`);
  expectStatus(
    'POST /api/v1/webhooks',
    await api(paymentsUrl, 'POST', '/api/v1/webhooks', { 'x-api-key': apiKey }, { url: receiverUrl, eventTypes }),
    201,
  );
  return { platformId, apiKey, bearer: { authorization: `Bearer ${accessToken}` } };
}

/** Records every delivery by its event id (body `id`), answering 200 at once. */
export async function startReceiver(port: number): Promise<{ url: string; received: Received; server: Server }> {
  const received: Received = { byEvent: new Map(), types: new Map(), total: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string };
        received.total += 1;
        received.byEvent.set(event.id, (received.byEvent.get(event.id) ?? 0) + 1);
        received.types.set(event.id, event.type);
      } catch {
        // not an event: ignored, still answered
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${port}/webhooks/holdfast`, received, server };
}

function randomAddress(): Address {
  return `0x${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '').slice(0, 8)}` as Address;
}

/** Why a request got no answer: refused (nobody listens), reset (cut mid-way), timeout, other. */
function networkError(error: unknown): string {
  const text = `${(error as { cause?: { code?: string } }).cause?.code ?? ''} ${String(error)}`;
  if (/ECONNREFUSED/.test(text)) return 'refused';
  if (/ECONNRESET|UND_ERR_SOCKET|other side closed/.test(text)) return 'reset';
  if (/timeout|aborted/i.test(text)) return 'timeout';
  return 'error';
}

export async function createTransaction(
  paymentsUrls: string[],
  platform: Platform,
  key: string,
  body: Record<string, unknown>,
): Promise<{ status: number; id?: string; error?: string; escrow?: EscrowTerms }> {
  // Round robin with a load balancer's retry: a refused connection (an instance that is down) goes
  // to the next instance; anything else is the answer.
  const start = Math.floor(Math.random() * paymentsUrls.length);
  let last: { status: number; error?: string } = { status: 0, error: 'refused' };
  for (let i = 0; i < paymentsUrls.length; i++) {
    const url = paymentsUrls[(start + i) % paymentsUrls.length]!;
    try {
      const res = await fetch(`${url}/api/v2/transactions`, {
        method: 'POST',
        headers: { ...platform.bearer, 'idempotency-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const answer = (await res.json().catch(() => ({}))) as { id?: string; escrow?: EscrowTerms };
      return { status: res.status, ...(answer.id ? { id: answer.id } : {}), ...(answer.escrow ? { escrow: answer.escrow } : {}) };
    } catch (error) {
      last = { status: 0, error: networkError(error) };
      if (last.error !== 'refused') return last;
    }
  }
  return last;
}

export interface Load {
  creations: Creation[];
  /** Transactions whose escrow was locked on chain (createEscrow mined). */
  locked: Map<string, Hex>;
  lockFailures: number;
  /** The last reason a lock attempt was put back (payments down, a chain error). */
  lastLockError: string;
  stop: () => Promise<void>;
}

/**
 * `ratePerSecond` creations a second (a fresh Idempotency-Key each), every `escrowEvery`-th from
 * the escrow sender, whose escrow a serial locker then creates on chain.
 */
export function startLoad(options: {
  paymentsUrls: () => string[];
  platform: Platform;
  ratePerSecond: number;
  rpcUrl: string;
  chainId: number;
  escrowEvery: number;
}): Load {
  const creations: Creation[] = [];
  const locked = new Map<string, Hex>();
  const toLock: { id: string; terms: EscrowTerms }[] = [];
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let seq = 0;
  let lockFailures = 0;
  let lastLockError = '';

  const one = async () => {
    seq += 1;
    const escrowSender = seq % options.escrowEvery === 0;
    const key = randomUUID();
    const body = {
      fromAddress: escrowSender ? ESCROW_SENDER.address : randomAddress(),
      toAddress: SMOKE_RECEIVER,
      amount: `${1 + (seq % 97)}.${String(seq % 1000).padStart(3, '0')}`,
      signerType: 'external_wallet',
    };
    const creation: Creation = { key, body, at: Date.now(), status: 0, escrowSender };
    creations.push(creation);
    const { escrow, ...answer } = await createTransaction(options.paymentsUrls(), options.platform, key, body);
    Object.assign(creation, answer, { answeredAt: Date.now() });
    if (escrowSender && answer.status === 201 && answer.id && escrow) toLock.push({ id: answer.id, terms: escrow });
  };

  const ticker = setInterval(() => {
    if (!running || inFlight.size >= 200) return;
    const task = one().finally(() => inFlight.delete(task));
    inFlight.add(task);
  }, 1000 / options.ratePerSecond);

  const chain = evmChain({ id: options.chainId, name: 'anvil', rpcUrl: options.rpcUrl });
  const publicClient = createPublicClient({ chain, transport: http(options.rpcUrl), pollingInterval: 100 });
  const wallet = createWalletClient({ account: ESCROW_SENDER, chain, transport: http(options.rpcUrl) });

  const locker = (async () => {
    let approved = false;
    while (running || toLock.length > 0) {
      const next = toLock.shift();
      if (!next) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      try {
        // The escrow terms of the creation's answer, as scripts/sign-escrow.ts uses them.
        const { terms } = next;
        if (!approved) {
          const mint = await wallet.writeContract({
            address: terms.tokenAddress,
            abi: mockUsdcAbi,
            functionName: 'mint',
            args: [ESCROW_SENDER.address, 10n ** 15n],
          });
          await publicClient.waitForTransactionReceipt({ hash: mint });
          const approve = await wallet.writeContract({
            address: terms.tokenAddress,
            abi: mockUsdcAbi,
            functionName: 'approve',
            args: [terms.contractAddress, maxUint256],
          });
          await publicClient.waitForTransactionReceipt({ hash: approve });
          approved = true;
        }
        const hash = await wallet.writeContract({
          address: terms.contractAddress,
          abi: holdfastEscrowAbi,
          functionName: 'createEscrow',
          args: [
            terms.onchainId,
            SMOKE_RECEIVER,
            terms.tokenAddress,
            BigInt(terms.amountBaseUnits),
            terms.attester,
            BigInt(terms.holdDeadline),
          ],
        });
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        if (receipt.status === 'success') locked.set(next.id, hash);
        else lockFailures += 1;
      } catch (error) {
        // The chain refused for now: try again shortly.
        lastLockError = String(error).slice(0, 300);
        toLock.push(next);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  return {
    creations,
    locked,
    get lockFailures() {
      return lockFailures;
    },
    get lastLockError() {
      return lastLockError;
    },
    stop: async () => {
      running = false;
      clearInterval(ticker);
      await Promise.all(inFlight);
      await Promise.race([locker, new Promise((r) => setTimeout(r, 30_000))]);
    },
  };
}
