import { type ChainEventOf, chainEventId } from '@holdfast/contracts';
import postgres from 'postgres';
import { request } from 'undici';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTESTER,
  type IndexerWorld,
  RECEIVER,
  SENDER,
  type StreamMessage,
  startIndexerWorld,
  type TestChain,
  usdc,
} from '../support/chain.js';

let world: IndexerWorld;
let chain: TestChain;
let service: IndexerWorld['service'];
let stream: IndexerWorld['stream'];
const backfilled: { id: string; hash: string }[] = [];

const ofKind = <K extends StreamMessage['event']['kind']>(messages: StreamMessage[], kind: K) =>
  messages.filter((m) => m.event.kind === kind) as (StreamMessage & { event: ChainEventOf<K> })[];

beforeAll(async () => {
  world = await startIndexerWorld({
    fund: usdc('1000000'),
    // Mined before the indexer starts: it must find them by backfilling from the deployment block.
    beforeStart: async (chain) => {
      for (const amount of ['10', '20']) {
        const { id, receipt } = await chain.createEscrow({ amount: usdc(amount) });
        backfilled.push({ id, hash: receipt.transactionHash });
      }
    },
  });
  ({ chain, service, stream } = world);
});

afterAll(() => world?.stop());

describe('backfill', () => {
  it('publishes the events mined before the indexer started, from the deployment block on', async () => {
    const messages = await stream.until((m) => m.length >= 2, 'the two backfilled escrows');
    expect(messages.map((m) => [m.event.kind, m.event.transactionId, m.event.transactionHash])).toEqual(
      backfilled.map((b) => ['escrow.created', b.id, b.hash]),
    );
    expect(messages.map((m) => (m.event.kind === 'escrow.created' ? m.event.data.amount : null))).toEqual(['10000000', '20000000']);
  });
});

describe('a batch signed by a client-side wallet', () => {
  it('publishes one escrow.created per leg, with the escrow address and transaction hash, then one escrow.batch-created', async () => {
    const before = (await stream.read()).length;
    const amounts = [usdc('1.5'), usdc('2'), usdc('300')];
    const { ids, receipt } = await chain.createBatch(amounts);
    const messages = (await stream.until((m) => m.length >= before + 4, 'three legs and the batch')).slice(before);
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });

    const created = ofKind(messages, 'escrow.created');
    expect(created.map((m) => m.event.transactionId)).toEqual(ids);
    created.forEach((m, i) => {
      expect(m.subject).toBe('chain.base-sepolia.escrow.created');
      expect(m.msgId).toBe(m.event.eventId);
      expect(m.event).toEqual({
        eventId: chainEventId(84532, receipt.transactionHash, i),
        removed: false,
        network: 'base-sepolia',
        chainId: 84532,
        contractAddress: chain.escrow,
        blockNumber: Number(receipt.blockNumber),
        blockHash: receipt.blockHash,
        blockTimestamp: new Date(Number(block.timestamp) * 1000).toISOString(),
        // CHAIN_CONFIRMATIONS is 0 here: seen is confirmed at once (how many blocks are on top by then varies).
        finality: 'confirmed',
        confirmations: m.event.confirmations,
        transactionHash: receipt.transactionHash,
        logIndex: i,
        escrowId: `0x${'0'.repeat(32)}${ids[i]!.replaceAll('-', '')}`,
        transactionId: ids[i],
        kind: 'escrow.created',
        data: {
          sender: SENDER!.address,
          receiver: RECEIVER!.address,
          token: chain.token,
          amount: amounts[i]!.toString(),
          attester: ATTESTER!.address,
          holdDeadline: '1970-01-01T00:00:00.000Z',
          expiresAt: m.event.data.expiresAt,
        },
      });
    });
    const [batch] = ofKind(messages, 'escrow.batch-created');
    expect(batch?.subject).toBe('chain.base-sepolia.escrow.batch-created');
    expect(batch?.event).toMatchObject({
      transactionId: ids[0],
      transactionHash: receipt.transactionHash,
      logIndex: 3,
      data: { sender: SENDER!.address, token: chain.token, legCount: 3, total: usdc('303.5').toString() },
    });
  });
});

describe('every escrow event', () => {
  it('is decoded into its kind with its arguments', async () => {
    const before = (await stream.read()).length;
    const released = await chain.createEscrow({});
    const rescinded = await chain.createEscrow({ holdSeconds: 3_600n });
    const refunded = await chain.createEscrow({ amount: usdc('100') });
    const early = await chain.createEscrow({});
    await chain.write(SENDER!, 'release', released.id);
    await chain.write(SENDER!, 'rescind', rescinded.id);
    await chain.write(ATTESTER!, 'freeze', refunded.id);
    await chain.refund(refunded.id, 2500n);
    await chain.write(RECEIVER!, 'attestEarlyRelease', early.id);
    await chain.write(SENDER!, 'attestEarlyRelease', early.id);
    const messages = (await stream.until((m) => m.length >= before + 11, 'eleven events')).slice(before);
    const rest = messages.filter((m) => m.event.kind !== 'escrow.created');
    expect(rest.map((m) => [m.subject, m.event.transactionId, m.event.data])).toEqual([
      [
        'chain.base-sepolia.escrow.released',
        released.id,
        { receiver: RECEIVER!.address, by: SENDER!.address, amount: '10000000', reason: 'release' },
      ],
      ['chain.base-sepolia.escrow.rescinded', rescinded.id, { sender: SENDER!.address, amount: '10000000' }],
      ['chain.base-sepolia.escrow.frozen', refunded.id, { attester: ATTESTER!.address, expiresAt: expect.any(String) }],
      [
        'chain.base-sepolia.escrow.refunded',
        refunded.id,
        { sender: SENDER!.address, receiver: RECEIVER!.address, refundedToSender: '25000000', paidToReceiver: '75000000', refundBps: 2500 },
      ],
      ['chain.base-sepolia.escrow.early-release-attested', early.id, { party: RECEIVER!.address }],
      ['chain.base-sepolia.escrow.early-release-attested', early.id, { party: SENDER!.address }],
      [
        'chain.base-sepolia.escrow.released',
        early.id,
        { receiver: RECEIVER!.address, by: SENDER!.address, amount: '10000000', reason: 'early_release' },
      ],
    ]);
  });

  it('is on the stream exactly once, and recorded with the cursor at the head', async () => {
    const head = await chain.publicClient.getBlockNumber();
    const sql = postgres(world.db.url, { max: 1, onnotice: () => {} });
    try {
      const cursor = await (async () => {
        for (;;) {
          const [row] = await sql`select block_number, block_hash from indexer.cursors where network = 'base-sepolia'`;
          if (row && BigInt(row.block_number) === head) return row;
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      expect(cursor.block_hash).toBe((await chain.publicClient.getBlock({ blockNumber: head })).hash);
      const messages = await stream.read();
      const ids = messages.map((m) => m.msgId);
      expect(new Set(ids).size).toBe(ids.length);
      const rows = await sql`select event_id from indexer.events where removed_at is null order by block_number, log_index`;
      expect(rows.map((r) => r.event_id)).toEqual(ids);
      expect(messages.every((m) => getAddress(m.event.contractAddress) === chain.escrow)).toBe(true);
    } finally {
      await sql.end();
    }
  });

  it('reports the network ready and counts what it published', async () => {
    const ready = await request(`${service.url}/health/ready`);
    expect(await ready.body.json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', nats: 'ok', 'chain:base-sepolia': 'ok', 'indexer:base-sepolia': 'ok' },
    });
    const metrics = await (await request(`${service.url}/metrics`)).body.text();
    expect(metrics).toMatch(
      /chain_indexer_events_published_total\{network="base-sepolia",kind="escrow.created",service="chain-indexer"\} 9/,
    );
    expect(metrics).toMatch(/chain_indexer_cursor_block\{network="base-sepolia",service="chain-indexer"\} \d+/);
  });
});
