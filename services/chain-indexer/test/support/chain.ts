import { randomUUID } from 'node:crypto';
import { type ChainEvent, STREAMS } from '@holdfast/contracts';
import { holdfastEscrowAbi, uuidToOnchainId } from '@holdfast/escrow';
import { startChainWorld } from '@holdfast/escrow/testing';
import { startForTest } from '@holdfast/http-kit';
import { type Bus, prefixedName } from '@holdfast/messaging';
import {
  ANVIL_ACCOUNTS,
  type Anvil,
  createTestBus,
  createTestDatabase,
  startAnvil,
  type TestBus,
  type TestDatabase,
  testLogger,
} from '@holdfast/test-fixtures';
import postgres from 'postgres';
import {
  type Account,
  type Address,
  type Chain,
  type Hash,
  type HttpTransport,
  type PublicClient,
  parseUnits,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createIndexerService, indexerConfigFrom } from '../../src/index.js';

export const usdc = (amount: string) => parseUnits(amount, 6);

/** anvil's dev accounts by role. */
export const [DEPLOYER, SENDER, RECEIVER, ATTESTER] = ANVIL_ACCOUNTS.map((a) => privateKeyToAccount(a.privateKey));

export interface TestChain {
  anvil: Anvil;
  publicClient: PublicClient<HttpTransport, Chain>;
  wallet: (account: Account) => WalletClient<HttpTransport, Chain, Account>;
  token: Address;
  escrow: Address;
  deploymentBlock: bigint;
  /** The ESCROW_CONTRACTS value of this chain. */
  escrowContracts: string;
  mined: (hash: Promise<Hash> | Hash) => Promise<TransactionReceipt>;
  /** Mints `amount` to the account and approves the escrow for everything. */
  fund: (account: Account, amount: bigint) => Promise<void>;
  createEscrow: (args: {
    id?: string;
    amount?: bigint;
    holdSeconds?: bigint;
    from?: Account;
  }) => Promise<{ id: string; receipt: TransactionReceipt }>;
  createBatch: (amounts: bigint[], from?: Account) => Promise<{ ids: string[]; receipt: TransactionReceipt }>;
  write: (
    account: Account,
    functionName: 'release' | 'rescind' | 'freeze' | 'attestEarlyRelease',
    id: string,
  ) => Promise<TransactionReceipt>;
  refund: (id: string, bps: bigint) => Promise<TransactionReceipt>;
  now: () => Promise<bigint>;
  stop: () => Promise<void>;
}

/** A private anvil with MockUSDC and the escrow deployed, and helpers that act as a client-side signer would. */
export async function startChain(existing?: Anvil): Promise<TestChain> {
  const world = await startChainWorld('chain-indexer', existing ? { anvil: existing } : {});
  const { anvil, publicClient, wallet, fund, now } = world;
  const mined = world.succeeded;
  const token = world.usdc;
  const escrow = world.escrow;

  return {
    anvil,
    publicClient,
    wallet,
    token,
    escrow,
    deploymentBlock: world.deploymentBlock,
    escrowContracts: world.env.ESCROW_CONTRACTS,
    mined,
    fund,
    now,
    createEscrow: async ({ id = randomUUID(), amount = usdc('10'), holdSeconds = 0n, from = SENDER! }) => {
      const holdDeadline = holdSeconds > 0n ? (await now()) + holdSeconds : 0n;
      const receipt = await mined(
        wallet(from).writeContract({
          address: escrow,
          abi: holdfastEscrowAbi,
          functionName: 'createEscrow',
          args: [uuidToOnchainId(id), RECEIVER!.address, token, amount, ATTESTER!.address, holdDeadline],
        }),
      );
      return { id, receipt };
    },
    createBatch: async (amounts, from = SENDER!) => {
      const ids = amounts.map(() => randomUUID());
      const receipt = await mined(
        wallet(from).writeContract({
          address: escrow,
          abi: holdfastEscrowAbi,
          functionName: 'createBatch',
          args: [ids.map(uuidToOnchainId), ids.map(() => RECEIVER!.address), amounts, token, ATTESTER!.address, 0n],
        }),
      );
      return { ids, receipt };
    },
    write: (account, functionName, id) =>
      mined(wallet(account).writeContract({ address: escrow, abi: holdfastEscrowAbi, functionName, args: [uuidToOnchainId(id)] })),
    refund: (id, bps) =>
      mined(
        wallet(ATTESTER!).writeContract({
          address: escrow,
          abi: holdfastEscrowAbi,
          functionName: 'refund',
          args: [uuidToOnchainId(id), bps],
        }),
      ),
    stop: world.stop,
  };
}

export interface StreamMessage {
  seq: number;
  subject: string;
  msgId: string;
  event: ChainEvent;
}

/** Reads the CHAIN stream of a test bus from the start; `read()` returns every message so far, in stream order. */
export function chainStream(bus: Bus) {
  const stream = prefixedName(bus, STREAMS.CHAIN.name);
  const seen: StreamMessage[] = [];
  let next = 1;
  return {
    async read(): Promise<StreamMessage[]> {
      const info = await bus.jsm.streams.info(stream);
      for (; next <= info.state.last_seq; next++) {
        const message = await bus.jsm.streams.getMessage(stream, { seq: next });
        if (!message) continue;
        seen.push({
          seq: message.seq,
          subject: message.subject.slice(bus.prefix.length),
          msgId: message.header.get('Nats-Msg-Id'),
          event: message.json<ChainEvent>(),
        });
      }
      return [...seen];
    },
    /** Waits until `done` holds for the messages so far (bounded wait, not a timing assertion). */
    async until(done: (messages: StreamMessage[]) => boolean, what: string, timeoutMs = 20_000): Promise<StreamMessage[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const messages = await this.read();
        if (done(messages)) return messages;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the stream holds ${messages.length} messages`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** Waits for a condition (bounded, not a timing assertion). */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The indexer's environment in a test: this file's database and NATS prefix, one chain as
 * base-sepolia, polling every 50 ms; `extra` adds or overrides settings.
 */
export function indexerTestEnv(
  db: { url: string },
  nats: { url: string; prefix: string },
  chain: TestChain,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    CHAIN_RPC_URLS: `base-sepolia=${chain.anvil.rpcUrl}`,
    ESCROW_CONTRACTS: chain.escrowContracts,
    INDEXER_POLL_INTERVAL: '50ms',
    ...extra,
  };
}

/** A running indexer (its HTTP server on a free port) on that environment. */
export async function startIndexer(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  return startForTest(await createIndexerService(indexerConfigFrom(env), testLogger('chain-indexer')));
}

export interface IndexerWorld {
  db: TestDatabase;
  nats: TestBus;
  chain: TestChain;
  stream: ReturnType<typeof chainStream>;
  /** A connection to the indexer's database, for its cursor and tables. */
  sql: postgres.Sql;
  service: { url: string; stop: () => Promise<void> };
  /** Stops the indexer and drops everything it was given. */
  stop: () => Promise<void>;
}

/**
 * The set-up of an indexer test file: its own database, NATS prefix and chain, the sender funded
 * with `fund`, `beforeStart` run on the chain before the indexer starts (history it must
 * backfill), then the indexer on `indexerTestEnv` plus `env`.
 */
export async function startIndexerWorld(options: {
  fund: bigint;
  env?: Record<string, string>;
  beforeStart?: (chain: TestChain) => Promise<void>;
  /** The chain's epoch (anvil's `safe` is the head minus one, `finalized` minus two); anvil's 32 otherwise. */
  slotsInAnEpoch?: number;
}): Promise<IndexerWorld> {
  const anvil = options.slotsInAnEpoch === undefined ? undefined : await startAnvil({ slotsInAnEpoch: options.slotsInAnEpoch });
  const [db, nats, chain] = await Promise.all([createTestDatabase(), createTestBus(), startChain(anvil)]);
  const stream = chainStream(nats.bus);
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  let service: IndexerWorld['service'] | undefined;
  const stop = async () => {
    await service?.stop();
    await sql.end();
    await chain.stop();
    await nats.dispose();
    await db.drop();
  };
  try {
    await chain.fund(SENDER!, options.fund);
    await options.beforeStart?.(chain);
    service = await startIndexer(indexerTestEnv(db, nats, chain, options.env));
  } catch (error) {
    await stop();
    throw error;
  }
  return { db, nats, chain, stream, sql, service, stop };
}
