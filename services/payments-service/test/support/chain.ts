import {
  type ChainEvent,
  ChainEvent as ChainEventSchema,
  chainEventId,
  chainMessageId,
  chainSubject,
  RELEASE_REASONS,
  uuidv7,
} from '@holdfast/contracts';
import { holdfastEscrowAbi, mockUsdcAbi } from '@holdfast/contracts/escrow';
import { onchainIdToUuid, uuidToOnchainId } from '@holdfast/escrow';
import { startChainWorld } from '@holdfast/escrow/testing';
import type { Logger } from '@holdfast/logging';
import { type Bus, publishChecked } from '@holdfast/messaging';
import { ANVIL_ACCOUNTS, type Anvil } from '@holdfast/test-fixtures';
import {
  type Account,
  type Address,
  type Chain,
  decodeEventLog,
  getAddress,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { LOCAL_ATTESTER_KEY } from '../../src/config.js';
import { bearer, call, newPlatform, type PaymentsEnv, startPaymentsEnv, type TestSql, tokenFor } from './harness.js';

export const NETWORK = 'base-sepolia';
/** The escrow's sender (anvil #1) and receiver (#2), and the amount the files lock: 25.5 MockUSDC. */
export const SENDER = ANVIL_ACCOUNTS[1].address;
export const RECEIVER = ANVIL_ACCOUNTS[2].address;
export const AMOUNT = 25_500_000n;
export const ATTESTER = privateKeyToAccount(LOCAL_ATTESTER_KEY).address;

type Wallet = WalletClient<Transport, Chain, Account>;

export interface ChainWorld {
  anvil: Anvil;
  publicClient: PublicClient;
  usdc: Address;
  escrow: Address;
  sender: Wallet;
  receiver: Wallet;
  stranger: Wallet;
  env: Record<string, string>;
  mined: (hash: Promise<Hash>) => Promise<TransactionReceipt>;
  balance: (address: Address) => Promise<bigint>;
  mint: (to: Address, amount: bigint) => Promise<TransactionReceipt>;
  transfer: (to: Address, amount: bigint) => Promise<TransactionReceipt>;
  createEscrow: (
    transactionId: string,
    amount: bigint,
    options?: { holdDeadline?: bigint; receiver?: Address; attester?: Address },
  ) => Promise<TransactionReceipt>;
  /** The sender approves and calls `pay(transactionId, receiver, token, amount)` on the escrow (a tagged raw transfer). */
  pay: (transactionId: string, amount: bigint, options?: { receiver?: Address; onchainId?: Hex }) => Promise<TransactionReceipt>;
  escrowCall: (
    fn: 'rescind' | 'release' | 'attestEarlyRelease',
    transactionId: string,
    by?: 'sender' | 'receiver',
  ) => Promise<TransactionReceipt>;
  escrowStatus: (transactionId: string) => Promise<number>;
  now: () => Promise<bigint>;
  indexed: (receipt: TransactionReceipt) => Promise<ChainEvent[]>;
}

/**
 * A private anvil with MockUSDC and the escrow deployed (by the local deployer, as ./scripts/start
 * does), wallets for the sender (#1), the receiver (#2) and a stranger (#3), and the payments
 * configuration that points at them.
 */
export async function startChain(options: { slotsInAnEpoch?: number } = {}): Promise<ChainWorld> {
  const world = await startChainWorld('payments', {
    anvil: options.slotsInAnEpoch === undefined ? {} : { slotsInAnEpoch: options.slotsInAnEpoch },
    network: NETWORK,
  });
  const { anvil, publicClient, mined } = world;
  const usdc = { address: world.usdc };
  const escrow = { address: world.escrow };
  const wallet = (i: 1 | 2 | 3): Wallet => world.wallet(privateKeyToAccount(ANVIL_ACCOUNTS[i].privateKey));
  const sender = wallet(1);
  const receiver = wallet(2);
  const stranger = wallet(3);

  const api: ChainWorld = {
    anvil,
    publicClient: publicClient as PublicClient,
    usdc: usdc.address,
    escrow: escrow.address,
    sender,
    receiver,
    stranger,
    env: { ...world.env, PAYMENTS_ATTESTER_PRIVATE_KEY: LOCAL_ATTESTER_KEY, SETTLEMENT_POLL_INTERVAL: '100ms' },
    mined,
    balance: world.balance,
    async mint(to: Address, amount: bigint) {
      return mined(sender.writeContract({ address: usdc.address, abi: mockUsdcAbi, functionName: 'mint', args: [to, amount] }));
    },
    async transfer(to: Address, amount: bigint) {
      return mined(sender.writeContract({ address: usdc.address, abi: mockUsdcAbi, functionName: 'transfer', args: [to, amount] }));
    },
    /** The sender approves and locks `amount` for `transactionId` (hold until `holdDeadline`, unix seconds; 0: none). */
    async createEscrow(
      transactionId: string,
      amount: bigint,
      options: { holdDeadline?: bigint; receiver?: Address; attester?: Address } = {},
    ) {
      await api.mint(sender.account.address, amount);
      await mined(
        sender.writeContract({ address: usdc.address, abi: mockUsdcAbi, functionName: 'approve', args: [escrow.address, amount] }),
      );
      return mined(
        sender.writeContract({
          address: escrow.address,
          abi: holdfastEscrowAbi,
          functionName: 'createEscrow',
          args: [
            uuidToOnchainId(transactionId),
            options.receiver ?? receiver.account.address,
            usdc.address,
            amount,
            options.attester ?? ATTESTER,
            options.holdDeadline ?? 0n,
          ],
        }),
      );
    },
    async pay(transactionId: string, amount: bigint, options: { receiver?: Address; onchainId?: Hex } = {}) {
      await api.mint(sender.account.address, amount);
      await mined(
        sender.writeContract({ address: usdc.address, abi: mockUsdcAbi, functionName: 'approve', args: [escrow.address, amount] }),
      );
      return mined(
        sender.writeContract({
          address: escrow.address,
          abi: holdfastEscrowAbi,
          functionName: 'pay',
          args: [options.onchainId ?? uuidToOnchainId(transactionId), options.receiver ?? receiver.account.address, usdc.address, amount],
        }),
      );
    },
    async escrowCall(fn: 'rescind' | 'release' | 'attestEarlyRelease', transactionId: string, by: 'sender' | 'receiver' = 'sender') {
      const w = by === 'sender' ? sender : receiver;
      return mined(
        w.writeContract({ address: escrow.address, abi: holdfastEscrowAbi, functionName: fn, args: [uuidToOnchainId(transactionId)] }),
      );
    },
    async escrowStatus(transactionId: string): Promise<number> {
      const e = await publicClient.readContract({
        address: escrow.address,
        abi: holdfastEscrowAbi,
        functionName: 'getEscrow',
        args: [uuidToOnchainId(transactionId)],
      });
      return Number((e as { status: number }).status);
    },
    now: world.now,
    /** The CHAIN messages the chain-indexer publishes for the escrow logs of a receipt (its decode, written out). */
    async indexed(receipt: TransactionReceipt): Promise<ChainEvent[]> {
      const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
      const events: ChainEvent[] = [];
      for (const log of receipt.logs) {
        if (log.address.toLowerCase() !== escrow.address.toLowerCase()) continue;
        const decoded = decodeEventLog({ abi: holdfastEscrowAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
        const args = decoded.args as Record<string, unknown>;
        const escrowId = ((args.id ?? args.firstId) as Hex).toLowerCase() as Hex;
        const a = (name: string) => getAddress(args[name] as string);
        const u = (name: string) => (args[name] as bigint).toString();
        const iso = (name: string) => new Date(Number(args[name] as bigint) * 1000).toISOString();
        const common = {
          eventId: chainEventId(anvil.chainId, log.transactionHash, log.logIndex),
          removed: false,
          network: NETWORK,
          chainId: anvil.chainId,
          contractAddress: getAddress(log.address),
          blockNumber: Number(log.blockNumber),
          blockHash: log.blockHash.toLowerCase(),
          blockTimestamp: new Date(Number(block.timestamp) * 1000).toISOString(),
          transactionHash: log.transactionHash.toLowerCase(),
          logIndex: log.logIndex,
          escrowId,
          transactionId: onchainIdToUuid(escrowId),
        } as const;
        switch (decoded.eventName) {
          case 'EscrowCreated':
            events.push({
              ...common,
              kind: 'escrow.created',
              data: {
                sender: a('sender'),
                receiver: a('receiver'),
                token: a('token'),
                amount: u('amount'),
                attester: a('attester'),
                holdDeadline: iso('holdDeadline'),
                expiresAt: iso('expiresAt'),
              },
            });
            break;
          case 'EscrowReleased':
            events.push({
              ...common,
              kind: 'escrow.released',
              data: {
                receiver: a('receiver'),
                by: a('by'),
                amount: u('amount'),
                reason: RELEASE_REASONS[Number(args.reason)] ?? 'release',
              },
            });
            break;
          case 'EscrowRescinded':
            events.push({ ...common, kind: 'escrow.rescinded', data: { sender: a('sender'), amount: u('amount') } });
            break;
          case 'EscrowRefunded':
            events.push({
              ...common,
              kind: 'escrow.refunded',
              data: {
                sender: a('sender'),
                receiver: a('receiver'),
                refundedToSender: u('refundedToSender'),
                paidToReceiver: u('paidToReceiver'),
                refundBps: Number(args.refundBps),
              },
            });
            break;
          case 'EarlyReleaseAttested':
            events.push({ ...common, kind: 'escrow.early-release-attested', data: { party: a('party') } });
            break;
          default:
            break;
        }
      }
      return events;
    },
  };
  return api;
}

/** Publishes CHAIN messages as the indexer does: subject per kind, Nats-Msg-Id = chainMessageId. */
export async function publishChain(bus: Bus, events: ChainEvent[]): Promise<void> {
  for (const event of events) {
    await publishChecked(bus, chainSubject(event.network, event.kind), ChainEventSchema, event, chainMessageId(event));
  }
}

/** Polls until `probe` answers something truthy (10 s at most). */
export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Sql = TestSql;

/** A transaction row as the create route writes it (the create route is another module's). */
export async function insertTransaction(
  sql: Sql,
  values: {
    platformId: string;
    from: string;
    to: string;
    amount?: string;
    status?: string;
    orchestrationType?: 'raw' | 'platform';
    holdDeadline?: string | null;
    rescindPolicy?: Record<string, unknown> | null;
  },
): Promise<string> {
  const id = uuidv7();
  // No stated hold unless the test gives one: the escrow's hold deadline must then equal it.
  const holdDeadline = values.holdDeadline ?? null;
  await sql`
    insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network,
      orchestration_type, signer_type, hold_deadline, rescind_policy)
    values (${id}, ${values.platformId}, ${values.status ?? 'pending'}, ${values.amount ?? '25.5'}, 'USDC', ${values.from}, ${values.to},
      ${NETWORK}, ${values.orchestrationType ?? 'platform'}, 'external_wallet', ${holdDeadline},
      ${values.rescindPolicy === undefined ? null : sql.json(values.rescindPolicy as never)})`;
  return id;
}

/** A platform with an API key (v1 scopes) and an OAuth token (v2 money movement and reversals). */
export async function platformWithCredentials(e: Pick<PaymentsEnv, 'svc' | 'admin'>, name: string) {
  const made = await newPlatform(e, {
    name,
    scopes: ['read:transactions', 'write:transactions', 'rescind:transactions', 'cancel:transactions'],
    clientScopes: ['read:transactions', 'write:transactions', 'move:transactions', 'reverse:transactions'],
  });
  const readOnly = await tokenFor(e.svc.url, made.client, 'read:transactions');
  return { platformId: made.platformId, apiKey: made.apiKey, token: made.token, readOnly };
}

/** The outbox events of a transaction, oldest first. */
export async function eventsOf(sql: Sql, transactionId: string) {
  return sql<{ type: string; payload: Record<string, unknown> & { data: Record<string, unknown> } }[]>`
    select type, payload from outbox where payload->'data'->'transaction'->>'id' = ${transactionId} order by seq`;
}

/**
 * A transaction of the platform from the sender (#1) to the receiver (#2), its escrow created on
 * chain by the sender and its hash reported to POST /api/v2/transactions/{id}/escrow-hash (200):
 * an escrowed payment as a client makes one.
 */
export async function escrowedThroughApi(
  e: { sql: Sql; url: string; world: ChainWorld },
  platform: { platformId: string; token: string },
  amount: bigint,
  options: { holdDeadline?: bigint } = {},
): Promise<string> {
  const id = await insertTransaction(e.sql, {
    platformId: platform.platformId,
    from: SENDER,
    to: RECEIVER,
  });
  const receipt = await e.world.createEscrow(id, amount, options);
  const res = await call(e.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
    headers: bearer(platform.token),
    body: { transactionHash: receipt.transactionHash },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return id;
}

export interface ChainPaymentsEnv extends PaymentsEnv {
  world: ChainWorld;
}

/**
 * The set-up of a payments test file on a private chain: `startChain` and `startPaymentsEnv`
 * pointed at it (`env` adds to or overrides that configuration). Its `stop` stops anvil too.
 */
export async function startChainPaymentsEnv(
  env: Record<string, string> = {},
  logger?: Logger,
  chainOptions: { slotsInAnEpoch?: number } = {},
): Promise<ChainPaymentsEnv> {
  const world = await startChain(chainOptions);
  try {
    const e = await startPaymentsEnv({ ...world.env, ...env }, undefined, logger);
    return {
      ...e,
      world,
      stop: async () => {
        await e.stop();
        await world.anvil.stop();
      },
    };
  } catch (error) {
    await world.anvil.stop();
    throw error;
  }
}
