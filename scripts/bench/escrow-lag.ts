// Escrow lag benchmark: from a sender's createEscrow mined on anvil to the transaction `escrowed` in
// payments, p50 and p99. The built payments-service and chain-indexer run as real processes (their
// bundle/main.js, as ./scripts/start runs them) against a throw-away anvil with the local contracts, a fresh
// database and their own NATS subject prefix, all removed afterwards. Transactions are created through the
// Payments API v2 (a platform, OAuth client and token made with the bootstrap key); each is then locked by
// its sender's own createEscrow, one at a time.
//
//   pnpm exec turbo run build && node scripts/bench/escrow-lag.ts [--samples 200] [--poll-only] [--write]
//
// --poll-only turns the indexer's new-heads subscription off (CHAIN_WS_URLS=base-sepolia=off): the
// fallback, and the indexer as it was before the subscription.
//
// Mined: when anvil answers eth_sendRawTransaction (it mines a block as each transaction arrives).
// Escrowed: when `transaction.escrowed` (written by payments' CHAIN consumer with the move, published by
// its outbox relay) reaches a plain subscriber of the EVENTS stream's subject, i.e. when a webhook
// subscriber could first learn of it. On the way, `escrow.created` reaching a subscriber of the CHAIN
// stream's subject splits the lag into the indexer's part and payments' part. Each sample's GET is
// checked to answer `escrowed` with the escrow and the hash (not timed). The baseline of the same run is
// a bare `eth_subscribe newHeads` client on the same anvil (mined -> its head announced); the CPU time
// of each process per escrow comes from /proc. Ends with one PASS/MISS line for issue 16's target
// (p99 ≤ 250 ms).
// --write puts the results into docs/benchmarks.md (its escrow-lag section). Needs PostgreSQL and NATS at
// DATABASE_URL and NATS_URL (./scripts/start's defaults otherwise).
import os from 'node:os';
import { chainSubject, eventSubject } from '@holdfast/contracts';
import { holdfastEscrowAbi, mockUsdcAbi } from '@holdfast/escrow';
import { type Address, encodeFunctionData, type Hex, maxUint256 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LOCAL_CHAIN_ID, LOCAL_NETWORK } from '../lib/stack/chain.ts';
import { api, expectStatus, postTransaction } from '../lib/stack/smoke-payment.ts';
import { openChainBenchWorld } from './chain-world.ts';
import { bareHeadSubscriber, HEAD_LAG_TARGET_MS, headLagTargetRow, headLagVerdict, writeHeadLagSection } from './head-lag.ts';
import { percentile, processCpuMs } from './load.ts';
import { flag, numberOption } from './options.ts';

import { checkQuiet } from './rounds.ts';

const SAMPLES = numberOption('samples', 200);
const WRITE = flag('write');
const POLL_ONLY = flag('poll-only');
/** Payments allows 10 creations per minute per sender: a new sender every 10 transactions. */
const PER_SENDER = 10;

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

interface Stats {
  p50: number;
  p99: number;
  max: number;
}
const stats = (values: number[]): Stats => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: Math.round(percentile(sorted, 50)), p99: Math.round(percentile(sorted, 99)), max: Math.round(sorted.at(-1) ?? 0) };
};

async function main(): Promise<void> {
  checkQuiet('bench', WRITE);
  const startLoad = os.loadavg();
  const world = await openChainBenchWorld();
  const { rpcUrl, deployment, publicClient, gasPrice, nc, prefix } = world;
  try {
    const { escrow, mockUsdc } = deployment.contracts;
    const rpc = (method: string, params: unknown[] = []) => publicClient.request({ method, params } as never);

    // Senders: new keys with ETH (anvil_setBalance), MockUSDC and the escrow approved once each.
    const senders = Array.from({ length: Math.ceil(SAMPLES / PER_SENDER) }, () => ({
      account: privateKeyToAccount(generatePrivateKey()),
      nonce: 0,
    }));
    const send = async (sender: (typeof senders)[number], to: Address, data: Hex) =>
      publicClient.sendRawTransaction({
        serializedTransaction: await sender.account.signTransaction({
          to,
          data,
          nonce: sender.nonce++,
          gas: 300_000n,
          gasPrice,
          chainId: LOCAL_CHAIN_ID,
          type: 'legacy',
        }),
      });
    const mined = async (hash: Hex) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${hash} reverted`);
      return receipt;
    };
    log(`funding ${senders.length} senders…`);
    for (const sender of senders) {
      await rpc('anvil_setBalance', [sender.account.address, '0x56BC75E2D63100000']);
      await mined(
        await send(
          sender,
          mockUsdc.address,
          encodeFunctionData({ abi: mockUsdcAbi, functionName: 'mint', args: [sender.account.address, 10n ** 12n] }),
        ),
      );
      await mined(
        await send(
          sender,
          mockUsdc.address,
          encodeFunctionData({ abi: mockUsdcAbi, functionName: 'approve', args: [escrow.address, maxUint256] }),
        ),
      );
    }

    // payments-service and chain-indexer, migrated and started as ./scripts/start does.
    const { base, bearer, pids } = await world.startServices('Bench', POLL_ONLY ? { CHAIN_WS_URLS: `${LOCAL_NETWORK}=off` } : {});
    const processNames = Object.keys(pids);

    // The transactions, through the API (not timed): PER_SENDER per sender.
    log(`creating ${SAMPLES} transactions through POST /api/v2/transactions…`);
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    const transactions: { id: string; sender: (typeof senders)[number]; escrow: Record<string, string> }[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const sender = senders[Math.floor(i / PER_SENDER)]!;
      const created = await postTransaction(base, bearer, {
        fromAddress: sender.account.address,
        toAddress: receiver,
        amount: '1.5',
        signerType: 'external_wallet',
      });
      transactions.push({ id: created.id as string, sender, escrow: created.escrow as Record<string, string> });
    }

    const chainSeen = new Map<string, number>();
    const escrowedSeen = new Map<string, number>();
    const subscriptions = [
      nc.subscribe(`${prefix}${chainSubject(LOCAL_NETWORK, 'escrow.created')}`, {
        callback: (_error, message) => {
          chainSeen.set((message.json() as { transactionId: string }).transactionId, performance.now());
        },
      }),
      nc.subscribe(`${prefix}${eventSubject('transaction.escrowed')}`, {
        callback: (_error, message) => {
          escrowedSeen.set((message.json() as { data: { transaction: { id: string } } }).data.transaction.id, performance.now());
        },
      }),
    ];
    const toIndexer: number[] = [];
    const toEscrowed: number[] = [];
    const inPayments: number[] = [];
    const toBareHead: number[] = [];
    const bare = await bareHeadSubscriber(rpcUrl);
    const cpuBefore = Object.fromEntries(processNames.map((name) => [name, processCpuMs(pids[name])]));
    log(`lag over ${SAMPLES} escrows, one at a time…`);
    for (const { id, sender, escrow: terms } of transactions) {
      const data = encodeFunctionData({
        abi: holdfastEscrowAbi,
        functionName: 'createEscrow',
        args: [
          terms.onchainId as Hex,
          receiver,
          terms.tokenAddress as Address,
          BigInt(terms.amountBaseUnits!),
          terms.attester as Address,
          BigInt(terms.holdDeadline!),
        ],
      });
      const hash = await send(sender, terms.contractAddress as Address, data);
      const minedAt = performance.now();
      const receipt = await mined(hash);
      const deadline = Date.now() + 30_000;
      while (!escrowedSeen.has(id)) {
        if (Date.now() > deadline)
          throw new Error(`transaction ${id} was not escrowed within 30 s (indexer published: ${chainSeen.has(id)})`);
        await new Promise((r) => setTimeout(r, 2));
      }
      const indexed = chainSeen.get(id) ?? Number.NaN;
      toIndexer.push(indexed - minedAt);
      toEscrowed.push(escrowedSeen.get(id)! - minedAt);
      inPayments.push(escrowedSeen.get(id)! - indexed);
      toBareHead.push((bare.announced.get(receipt.blockNumber) ?? Number.NaN) - minedAt);
      const read = expectStatus(`GET /api/v2/transactions/${id}`, await api(base, 'GET', `/api/v2/transactions/${id}`, bearer), 200);
      if (read.status !== 'escrowed' || read.txHash !== hash)
        throw new Error(`GET ${id}: ${read.status} ${read.txHash}, expected escrowed ${hash}`);
      // Spread the locks over the indexer's poll interval instead of hitting the same phase each time.
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 250));
    }
    for (const subscription of subscriptions) subscription.unsubscribe();
    bare.close();
    // CPU per escrow of each process over the lag loop (sleeps between samples included: polls count too).
    const cpuPerEscrow = Object.fromEntries(
      processNames.map((name) => {
        const before = cpuBefore[name];
        const after = processCpuMs(pids[name]);
        return [name, before === undefined || after === undefined ? undefined : (after - before) / SAMPLES];
      }),
    ) as Record<string, number | undefined>;
    const result = {
      samples: SAMPLES,
      escrowed: stats(toEscrowed),
      indexer: stats(toIndexer),
      payments: stats(inPayments),
      bareHead: stats(toBareHead),
      cpuPerEscrow,
    };
    log(JSON.stringify(result));
    report(result, startLoad);
  } finally {
    await world.close();
  }
}

function report(
  result: {
    samples: number;
    escrowed: Stats;
    indexer: Stats;
    payments: Stats;
    bareHead: Stats;
    cpuPerEscrow: Record<string, number | undefined>;
  },
  startLoad: number[],
): void {
  const row = (what: string, s: Stats) => `| ${what} | **p50 ${s.p50} ms, p99 ${s.p99} ms** (max ${s.max} ms) |`;
  const cpu = (name: string) => (result.cpuPerEscrow[name] === undefined ? 'n/a' : `${result.cpuPerEscrow[name]!.toFixed(1)} ms`);
  const verdict = headLagVerdict('lock mined to transaction.escrowed', result.escrowed.p99);
  writeHeadLagSection(
    {
      name: 'escrow-lag',
      title: 'Escrow lag',
      startLoad,
      command: `node scripts/bench/escrow-lag.ts --samples ${result.samples}${POLL_ONLY ? ' --poll-only' : ''}`,
      about: [
        "- **setup**: the built payments-service and chain-indexer as their own processes (`APP_ENV=local`, defaults: new heads by `eth_subscribe` at the RPC address as `ws://`, `INDEXER_POLL_INTERVAL=500ms` as the fallback, 0 confirmations in `local`; rate limits far above the load) against a throw-away anvil with the local contracts, a fresh database on the shared PostgreSQL and NATS JetStream. Each transaction is created through `POST /api/v2/transactions` (not timed), then its sender signs `createEscrow` from the answer's `escrow`, one at a time, 50 to 300 ms apart; anvil mines a block as each transaction arrives." +
          (POLL_ONLY ? ' With `--poll-only`: the subscription off (`CHAIN_WS_URLS=base-sepolia=off`), the indexer polls alone.' : ''),
        "- **measured**: from the moment anvil answers the `createEscrow` send (mined) to the moment `transaction.escrowed` reaches a plain subscriber of the EVENTS stream's subject (payments' CHAIN consumer moved the transaction and its outbox relay published the event: what a webhook subscriber could first see). `escrow.created` reaching a subscriber of the CHAIN stream splits it into the indexer's part and payments' part. After each sample `GET /api/v2/transactions/{id}` must answer `escrowed` with the `createEscrow` hash.",
      ],
      rows: [
        row(`head lag, block mined -> transaction \`escrowed\` (${result.samples} transactions)`, result.escrowed),
        row("the indexer's part: mined -> `escrow.created` on the CHAIN stream", result.indexer),
        row("payments' part: `escrow.created` -> `transaction.escrowed` on the EVENTS stream", result.payments),
        row('baseline: a bare `eth_subscribe newHeads` client on the same anvil, mined -> head announced', result.bareHead),
        `| CPU time per escrow (the lag loop, pauses included): chain-indexer, payments-service | ${cpu('chain-indexer')}, ${cpu('payments-service')} |`,
        headLagTargetRow(
          `mined -> \`transaction.escrowed\` p99 ≤ ${HEAD_LAG_TARGET_MS} ms`,
          result.escrowed.p99,
          result.bareHead.p99,
          'target',
        ),
      ],
      verdict,
      note: "The indexer is woken by each new head over its websocket subscription ([ADR 28](adr/0028-new-heads-subscription.md)) and reads one range (`eth_getLogs`, headers, publish, commit); payments' part is its CHAIN consumer (the receipt and the escrow's code checked, the move and its outbox event in one database transaction) and the outbox relay, woken by the NOTIFY of that transaction. The indexer alone: [chain-indexer](#chain-indexer).",
    },
    WRITE,
  );
}

await main();
