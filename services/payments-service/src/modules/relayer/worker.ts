import { AppError } from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import { createLeasedJobWorker, defineLeasedJob } from '@holdfast/runtime';
import { type Hash, keccak256, parseTransaction, type TransactionReceipt } from 'viem';
import type { ChainAccess, SettlementOperations } from '../settlement/index.js';
import type { RelayerChain } from './chain.js';
import type { RelayerRepository, RelayRow } from './repository.js';
import { relayedLocks } from './tables.js';

export interface RelayerWorkerDeps {
  sql: Sql;
  repository: RelayerRepository;
  chain: ChainAccess;
  relayerChain: RelayerChain;
  settlement: Pick<SettlementOperations, 'submitEscrowHash' | 'submitHash'>;
  logger: Logger;
  pollIntervalMs: number;
  stuckAfterMs: number;
  /** After a mined relay moved its transaction (the move's outbox event is committed). */
  onApplied: () => void;
}

/** A replacement pays at least this much more than the attempt it replaces (nodes want +10%; +12.5% is geth's and anvil's bar with margin). */
const BUMP_PER_MILLE = 1125n;
const bumped = (old: bigint, now: bigint) => {
  const min = (old * BUMP_PER_MILLE) / 1000n + 1n;
  return min > now ? min : now;
};

/**
 * Follows every relayed lock to its receipt (docs/checkout.md): re-sends the stored bytes when the
 * node does not know them (a crash before the send, a node that dropped them), replaces an attempt
 * without a receipt after RELAYER_STUCK_AFTER (same nonce, fees +12.5% at least, the new bytes stored
 * before they are sent), records the receipt of whichever attempt was mined with what it cost, and
 * moves the transaction to escrowed through settlement's submit-escrow-hash path.
 */
export function createRelayerWorker(deps: RelayerWorkerDeps) {
  const { sql, repository, chain, relayerChain, settlement, pollIntervalMs, stuckAfterMs } = deps;
  const log = deps.logger.child({ component: 'relayer-worker' });

  async function receiptOf(relay: RelayRow): Promise<TransactionReceipt | null> {
    for (const hash of [relay.txHash, ...relay.earlierHashes]) {
      const receipt = await chain.receipt(relay.network, hash as Hash);
      if (receipt) return receipt;
    }
    return null;
  }

  /**
   * The mined relay moves the transaction, through the path a submitted hash takes (settlement
   * checks the receipt and the terms): an escrow's creation escrows it, a transfer completes it.
   */
  async function apply(relay: RelayRow): Promise<void> {
    const hash = relay.minedHash;
    if (!hash) return;
    const owner = { platformId: relay.platformId };
    try {
      if (relay.kind === 'transfer') await settlement.submitHash(owner, relay.transactionId, { txHash: hash });
      else await settlement.submitEscrowHash(owner, relay.transactionId, { transactionHash: hash });
      await repository.markApplied(sql, relay.id, null);
      deps.onApplied();
      log.info({ relayId: relay.id, transactionId: relay.transactionId, txHash: hash, kind: relay.kind }, 'relayed transaction applied');
    } catch (error) {
      if (error instanceof AppError && (error.code === 'CHAIN_TRANSACTION_PENDING' || error.code === 'UPSTREAM_UNAVAILABLE')) {
        await repository.reschedule(sql, relay.id, pollIntervalMs);
        return;
      }
      if (!(error instanceof AppError)) throw error;
      // The escrow is on chain; the transaction could not take it (a status moved meanwhile): an operator's look.
      await repository.markApplied(sql, relay.id, `${error.code}: ${error.message}`.slice(0, 500));
      log.error(
        { err: error, relayId: relay.id, transactionId: relay.transactionId },
        'relayed transaction mined but not applied: needs an operator',
      );
    }
  }

  /** A replacement of the current attempt: same nonce and call, higher fees; stored, then sent. */
  async function replace(relay: RelayRow): Promise<void> {
    const account = relayerChain.account(relay.network);
    if (!account) return;
    const current = parseTransaction(relay.rawTx);
    const fees = await chain.rpc('estimateFeesPerGas', () => relayerChain.client(relay.network).estimateFeesPerGas());
    const maxPriorityFeePerGas = bumped(relay.maxPriorityFeePerGas, fees.maxPriorityFeePerGas);
    let maxFeePerGas = bumped(relay.maxFeePerGas, fees.maxFeePerGas);
    if (maxFeePerGas < maxPriorityFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: chain.chainId(relay.network),
      to: current.to ?? null,
      data: current.data ?? '0x',
      value: 0n,
      nonce: relay.accountNonce,
      gas: relay.gasLimit,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    const txHash = keccak256(raw);
    if (!(await repository.replace(sql, relay.id, relay.txHash, { rawTx: raw, txHash, maxFeePerGas, maxPriorityFeePerGas }))) return;
    const failure = await relayerChain.broadcast(relay.network, raw);
    log.warn(
      {
        relayId: relay.id,
        nonce: relay.accountNonce,
        replaced: relay.txHash,
        txHash,
        maxFeePerGas: maxFeePerGas.toString(),
        failure: failure?.message,
      },
      'relayed transaction stuck: replaced with higher fees (same nonce)',
    );
  }

  async function follow(relay: RelayRow): Promise<void> {
    if (relay.status === 'mined') return apply(relay);
    const receipt = await receiptOf(relay);
    if (receipt) {
      const status = receipt.status === 'success' ? 'mined' : 'reverted';
      const feePaidWei = receipt.gasUsed * receipt.effectiveGasPrice;
      await repository.recordReceipt(sql, relay.id, { status, hash: receipt.transactionHash, gasUsed: receipt.gasUsed, feePaidWei });
      log.info(
        { relayId: relay.id, txHash: receipt.transactionHash, status, feePaidWei: feePaidWei.toString() },
        'relayed transaction mined',
      );
      if (status === 'mined') await apply({ ...relay, status, minedHash: receipt.transactionHash });
      else log.error({ relayId: relay.id, transactionId: relay.transactionId, kind: relay.kind }, 'relayed transaction reverted');
      return;
    }
    const client = relayerChain.client(relay.network);
    const known = await chain.transaction(relay.network, relay.txHash);
    if (!known) {
      const used = await chain.rpc('getTransactionCount', () =>
        client.getTransactionCount({ address: relay.relayer as Hash, blockTag: 'latest' }),
      );
      if (used > relay.accountNonce) {
        // The nonce is mined: by one of ours (a receipt between the two reads), or by another transaction of the key.
        if (await receiptOf(relay)) return repository.reschedule(sql, relay.id, 0);
        await repository.markFailed(
          sql,
          relay.id,
          `account nonce ${relay.accountNonce} was used by another transaction of ${relay.relayer}`,
        );
        log.error({ relayId: relay.id, nonce: relay.accountNonce }, 'relayed transaction lost its nonce to another transaction: failed');
        return;
      }
      const failure = await relayerChain.broadcast(relay.network, relay.rawTx);
      log.info(
        { relayId: relay.id, txHash: relay.txHash, failure: failure?.message },
        'relayed transaction sent again (the node did not know it)',
      );
    }
    if (Date.now() - Date.parse(relay.sentAt) >= stuckAfterMs) await replace(relay);
    await repository.reschedule(sql, relay.id, pollIntervalMs);
  }

  // The relays followed to their receipts, as a leased job (ADR 65): a failed look is simply
  // looked at again (a poll later, at least a second), for as long as the relay is pending.
  const job = defineLeasedJob<RelayRow>({
    name: 'relayer-worker',
    table: relayedLocks,
    // A claim lasts this long: another instance takes over a relay whose claimer died.
    lease: { seconds: 60 },
    batch: 10,
    attempts: Number.POSITIVE_INFINITY,
    backoff: () => Math.max(pollIntervalMs, 1000),
    failure: (error) => (error instanceof Error ? error.message.slice(0, 500) : String(error)),
    describe: (relay) => ({ relayId: relay.id }),
    messages: { retrying: 'relay check failed; will retry', gaveUp: 'relay given up' },
  });

  return createLeasedJobWorker(
    job,
    { logger: deps.logger, intervalMs: pollIntervalMs },
    {
      claim: (limit, leaseSeconds) => sql.begin((tx) => repository.claimDue(tx, limit, leaseSeconds)),
      run: follow,
      retry: (relay, delayMs, failure) => repository.reschedule(sql, relay.id, delayMs, failure),
      giveUp: async () => {},
    },
  );
}
