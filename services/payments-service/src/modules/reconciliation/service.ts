import { AppError, type MismatchList, type MismatchQuery, paginationMeta, type ReconciliationPass } from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import { registerCountGauge } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { createPollingWorker } from '@holdfast/runtime';
import { Counter, type Registry } from 'prom-client';
import type { ChainAccess } from '../settlement/index.js';
import type { TransactionMoves, TransactionsRepository } from '../transactions/index.js';
import type { Candidate, ReconciliationRepository } from './repository.js';
import { CHAIN_STATUS_NAMES, type ChainStatusName, compare } from './rules.js';

const PAGE = 200;

export interface ReconciliationDeps {
  sql: Sql;
  repository: ReconciliationRepository;
  transactions: TransactionsRepository;
  moves: TransactionMoves;
  chain: ChainAccess;
  logger: Logger;
  registry: Registry;
  /** Settled transactions changed within this many seconds are compared too (RECONCILIATION_LOOKBACK). */
  lookbackSeconds: number;
  /** A repairable mismatch is repaired once it has been open this long (RECONCILIATION_REPAIR_AFTER): the CHAIN event may still come. */
  repairAfterMs: number;
}

/**
 * The reconciler (docs/settlement.md, "Reconciliation"): compares every escrowed transaction and
 * batch leg, and the settled ones within the look-back, with the escrow contract (read
 * CHAIN_CONFIRMATIONS deep), records each difference with since when (a metric, a log line, the
 * operator route), and repairs the ones `rules.compare` calls safe once they have been open for
 * `repairAfterMs`.
 */
export function createReconciliationService(deps: ReconciliationDeps) {
  const { sql, repository, transactions, moves, chain } = deps;
  const log = deps.logger.child({ component: 'reconciler' });
  registerCountGauge(deps.registry, {
    name: 'payments_reconciliation_mismatches',
    help: 'Open differences between the books and the escrow contract, by kind (docs/settlement.md, Reconciliation)',
    label: 'kind',
    counts: () => repository.countOpen(sql),
  });
  const found = new Counter({
    name: 'payments_reconciliation_mismatches_found_total',
    help: 'Differences the reconciler found (each once, when first seen), by kind',
    labelNames: ['kind'] as const,
    registers: [deps.registry],
  });
  const repairs = new Counter({
    name: 'payments_reconciliation_repairs_total',
    help: 'Differences the reconciler repaired by moving the transaction to what the chain says, by kind',
    labelNames: ['kind'] as const,
    registers: [deps.registry],
  });

  async function chainStatusOf(c: Candidate): Promise<ChainStatusName> {
    if (!c.escrowAddress) return 'none';
    const depth = chain.requiredConfirmations(c.network);
    const at = depth > 0 ? (await chain.latestBlock(c.network)) - BigInt(depth) : undefined;
    const escrow = await chain.getEscrow(c.network, c.escrowAddress, c.id, at !== undefined && at > 0n ? at : undefined);
    return CHAIN_STATUS_NAMES[Number(escrow.status)] ?? 'none';
  }

  /**
   * A lock the books announced at a level whose block the chain no longer holds (docs/chain.md,
   * levels): reported for an operator, never repaired here (the indexer's correction moves the
   * transaction back; this says it has not come).
   */
  async function announcedBlockGone(c: Candidate): Promise<boolean> {
    if (c.blockNumber === null || !c.blockHash) return false;
    const onChain = await chain.blockHashAt(c.network, BigInt(c.blockNumber));
    if (onChain === c.blockHash.toLowerCase()) return false;
    const chainStatus = await chainStatusOf(c);
    await repository.clear(sql, c.id, 'announced_block_gone');
    const { mismatch, fresh } = await repository.upsertOpen(sql, {
      kind: 'announced_block_gone',
      transactionId: c.id,
      batchId: c.batchId,
      network: c.network,
      escrowAddress: c.escrowAddress ?? '',
      databaseStatus: c.status,
      chainStatus,
      announcedFinality: c.finality,
      announcedBlockNumber: c.blockNumber,
      announcedBlockHash: c.blockHash,
    });
    if (fresh) {
      found.inc({ kind: 'announced_block_gone' });
      log.error(
        {
          kind: 'announced_block_gone',
          transactionId: c.id,
          databaseStatus: c.status,
          chainStatus,
          finality: c.finality,
          blockNumber: c.blockNumber,
          blockHash: c.blockHash,
          since: mismatch.firstSeenAt,
        },
        'reconciliation mismatch: a lock announced at a level is no longer in its block on chain; needs an operator',
      );
    }
    return true;
  }

  /** One transaction: compare, record, maybe repair. Answers what happened. */
  async function reconcile(c: Candidate): Promise<'agree' | 'mismatch' | 'repaired'> {
    if (await announcedBlockGone(c)) return 'mismatch';
    if (!c.escrowAddress) {
      await repository.clear(sql, c.id, null);
      return 'agree';
    }
    const chainStatus = await chainStatusOf(c);
    const { kind, repair } = compare(c.status, chainStatus, c.instructionOwed);
    const cleared = await repository.clear(sql, c.id, kind);
    if (cleared > 0) log.info({ transactionId: c.id, status: c.status, chainStatus }, 'reconciliation: a difference went away');
    if (!kind) return 'agree';
    const { mismatch, fresh } = await repository.upsertOpen(sql, {
      kind,
      transactionId: c.id,
      batchId: c.batchId,
      network: c.network,
      escrowAddress: c.escrowAddress,
      databaseStatus: c.status,
      chainStatus,
    });
    const line = { kind, transactionId: c.id, batchId: c.batchId, databaseStatus: c.status, chainStatus, since: mismatch.firstSeenAt };
    if (fresh) {
      found.inc({ kind });
      if (repair) log.warn({ ...line, repair }, 'reconciliation mismatch: the chain settled an escrow the books still hold');
      else log.error(line, 'reconciliation mismatch: needs an operator');
    }
    if (!repair || Date.parse(mismatch.firstSeenAt) > Date.now() - deps.repairAfterMs) return 'mismatch';
    const repaired = await sql.begin(async (tx) => {
      const row = await transactions.lock(tx, c.id);
      if (!row || row.status !== c.status) return false; // moved meanwhile (the CHAIN event came): the next pass looks again
      await moves.move(tx, {
        transactionId: c.id,
        action: repair,
        actor: 'reconciler',
        reason: `reconciled with the escrow contract: ${chainStatus} on chain`,
      });
      await repository.markRepaired(tx, mismatch.id, repair);
      return true;
    });
    if (!repaired) return 'mismatch';
    repairs.inc({ kind });
    log.warn({ ...line, repair }, 'reconciliation repaired: the transaction now says what the chain says');
    return 'repaired';
  }

  /** A whole pass, one instance at a time; null when another instance holds the pass. */
  async function runPass(): Promise<ReconciliationPass | null> {
    return sql.begin(async (lease) => {
      if (!(await repository.tryLease(lease))) return null;
      const pass = { checked: 0, mismatches: 0, repaired: 0, open: 0 };
      let after: string | null = null;
      for (;;) {
        const page = await repository.candidates(sql, after, PAGE, deps.lookbackSeconds);
        for (const c of page) {
          pass.checked += 1;
          try {
            const outcome = await reconcile(c);
            if (outcome !== 'agree') pass.mismatches += 1;
            if (outcome === 'repaired') pass.repaired += 1;
          } catch (error) {
            // An RPC failure or a network without RPC: this transaction waits for the next pass.
            log.warn({ err: error, transactionId: c.id, network: c.network }, 'reconciliation: escrow not read; next pass');
          }
        }
        if (page.length < PAGE) break;
        after = page[page.length - 1]?.id ?? null;
      }
      pass.open = Object.values(await repository.countOpen(sql)).reduce((a, b) => a + b, 0);
      return pass;
    });
  }

  return {
    runPass,
    /** POST /admin/reconciliation/run: a pass now (409 while another instance runs one). */
    async runNow(): Promise<ReconciliationPass> {
      const pass = await runPass();
      if (!pass) throw new AppError('CONFLICT', 'A reconciliation pass is running on another instance; try again shortly');
      return pass;
    },
    async list(query: MismatchQuery): Promise<MismatchList> {
      const { rows, total } = await repository.list(sql, query);
      return { data: rows, pagination: paginationMeta(query.page, query.limit, total) };
    },
  };
}
export type ReconciliationService = ReturnType<typeof createReconciliationService>;

/** The reconciler's timer: a pass every `everyMs` (and one at start); a failed pass is logged and the next one tries again. */
export function createReconciler(service: ReconciliationService, logger: Logger, everyMs: number) {
  const log = logger.child({ component: 'reconciler' });
  return createPollingWorker({
    name: 'reconciler',
    logger,
    intervalMs: everyMs,
    maxBackoffMs: everyMs,
    pass: async () => {
      const pass = await service.runPass();
      if (pass && pass.mismatches > 0) log.info(pass, 'reconciliation pass');
      return false;
    },
  });
}
