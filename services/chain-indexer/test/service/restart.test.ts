import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chainEventId } from '@holdfast/contracts';
import { startForTest } from '@holdfast/http-kit';
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase, testLogger } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexerService, indexerConfigFrom } from '../../src/index.js';
import { chainStream, eventually, SENDER, type StreamMessage, startChain, type TestChain, usdc } from '../support/chain.js';

let db: TestDatabase;
let nats: TestBus;
let chain: TestChain;
let stream: ReturnType<typeof chainStream>;
let sql: postgres.Sql;
let env: Record<string, string>;
const expected: string[] = [];
let child: ChildProcess | undefined;

const mainJs = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

beforeAll(async () => {
  [db, nats, chain] = await Promise.all([createTestDatabase(), createTestBus(), startChain()]);
  stream = chainStream(nats.bus);
  sql = postgres(db.url, { max: 1, onnotice: () => {} });
  await chain.fund(SENDER!, usdc('1000000'));
  // 30 escrows, each followed by 3 empty blocks: 120 blocks for the indexer to read one at a time.
  for (let i = 0; i < 30; i++) {
    const { receipt } = await chain.createEscrow({ amount: usdc(String(i + 1)) });
    expected.push(chainEventId(84532, receipt.transactionHash, 0));
    await chain.anvil.rpc('anvil_mine', ['0x3']);
  }
  env = {
    PATH: process.env.PATH ?? '',
    APP_ENV: 'local',
    LOG_LEVEL: 'warn',
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    CHAIN_RPC_URLS: `base-sepolia=${chain.anvil.rpcUrl}`,
    ESCROW_CONTRACTS: chain.escrowContracts,
    INDEXER_BLOCK_RANGE: '1',
    INDEXER_POLL_INTERVAL: '50ms',
    INDEXER_PORT: '0',
  };
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await sql?.end();
  await chain?.stop();
  await nats?.dispose();
  await db?.drop();
});

function startMain(): ChildProcess {
  // Its own working directory: no .env file of the repository leaks in.
  const started = spawn(process.execPath, [mainJs], {
    env,
    cwd: mkdtempSync(join(tmpdir(), 'indexer-')),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return started;
}

function exited(process_: ChildProcess): Promise<void> {
  return new Promise((resolve) =>
    process_.exitCode !== null || process_.signalCode !== null ? resolve() : process_.once('exit', () => resolve()),
  );
}

// The events at the network's depth (`confirmed`: the plain event id). The same event is also
// published when seen and as it becomes safe and finalized (`<id>@seen`, `@safe`, `@finalized`),
// which is not a duplicate: ADR 62.
const confirmedOnly = (messages: StreamMessage[]) => messages.filter((m) => !String(m.msgId).includes('@'));
const ids = (messages: StreamMessage[]) => confirmedOnly(messages).map((m) => m.msgId);

describe('the indexer killed mid-backfill', () => {
  it('loses and duplicates nothing once restarted', async () => {
    child = startMain();
    await stream.until((m) => confirmedOnly(m).length >= 3, 'the first events', 30_000);
    child.kill('SIGKILL');
    await exited(child);
    const atKill = await stream.read();
    // Killed part-way: some events were published, not all of them.
    expect(atKill.length).toBeLessThan(expected.length);
    const [cursorAtKill] = await sql`select block_number from indexer.cursors`;

    child = startMain();
    const all = await stream.until((m) => confirmedOnly(m).length >= expected.length, 'every event', 60_000);
    expect(ids(all)).toEqual(expected);
    expect(new Set(ids(all)).size).toBe(expected.length);
    const head = await chain.publicClient.getBlockNumber();
    await eventually(async () => {
      const [row] = await sql`select block_number from indexer.cursors`;
      return BigInt(row!.block_number) === head;
    }, 'the cursor at the head');
    expect(BigInt(cursorAtKill?.block_number ?? 0)).toBeLessThan(head);
    child.kill('SIGTERM');
    await exited(child);
    child = undefined;
    expect(ids(await stream.read())).toEqual(expected);
  }, 120_000);

  it('resumes from the persisted cursor after a restart', async () => {
    const [row] = await sql`select block_number from indexer.cursors`;
    const cursor = BigInt(row!.block_number);
    const added: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { receipt } = await chain.createEscrow({});
      added.push(chainEventId(84532, receipt.transactionHash, 0));
    }
    const head = await chain.publicClient.getBlockNumber();
    const config = indexerConfigFrom({ ...env, INDEXER_BLOCK_RANGE: '2000' });
    const service = await startForTest(await createIndexerService(config, testLogger('chain-indexer')));
    try {
      const all = await stream.until((m) => confirmedOnly(m).length >= expected.length + 3, 'the three new events');
      expect(ids(all)).toEqual([...expected, ...added]);
      // It read only the blocks after its cursor, not the history again.
      const metrics = await eventually(async () => {
        const text = await (await fetch(`${service.url}/metrics`)).text();
        return text.includes(`chain_indexer_cursor_block{network="base-sepolia",service="chain-indexer"} ${head}`) && text;
      }, 'the cursor metric at the head');
      expect(metrics).toContain(`chain_indexer_blocks_read_total{network="base-sepolia",service="chain-indexer"} ${head - cursor}`);
    } finally {
      await service.stop();
    }
  });
});

describe('two instances', () => {
  it('let one follow the network while the other stands by, and hand over when the first stops', async () => {
    const config = indexerConfigFrom({ ...env, INDEXER_BLOCK_RANGE: '2000' });
    const first = await startForTest(await createIndexerService(config, testLogger('chain-indexer')));
    let second: Awaited<ReturnType<typeof startForTest>> | undefined;
    try {
      const before = (await stream.read()).length;
      const one = await chain.createEscrow({});
      await stream.until((m) => confirmedOnly(m).some((x) => x.event.transactionId === one.id), 'the first instance to publish');
      second = await startForTest(await createIndexerService(config, testLogger('chain-indexer')));
      const leaderGauge = async (url: string) =>
        /chain_indexer_leader\{network="base-sepolia",service="chain-indexer"\} (\d)/.exec(
          await (await fetch(`${url}/metrics`)).text(),
        )?.[1];
      await eventually(async () => (await leaderGauge(second!.url)) === '0', 'the second instance to stand by');
      expect(await leaderGauge(first.url)).toBe('1');
      const [lease] = await sql`select owner from indexer.leases where network = 'base-sepolia'`;
      await first.stop();
      const two = await chain.createEscrow({});
      await stream.until((m) => confirmedOnly(m).some((x) => x.event.transactionId === two.id), 'the second instance to publish');
      const [taken] = await sql`select owner from indexer.leases where network = 'base-sepolia'`;
      expect(taken?.owner).not.toBe(lease?.owner);
      expect(await leaderGauge(second.url)).toBe('1');
      expect(confirmedOnly((await stream.read()).slice(before)).map((m) => m.event.transactionId)).toEqual([one.id, two.id]);
    } finally {
      await first.stop().catch(() => undefined);
      await second?.stop();
    }
  });
});
