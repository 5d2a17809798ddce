import {
  type AppEnv,
  AppError,
  AT_RISK_STATUSES,
  type AtRiskReport,
  type CreateTransactionBody,
  type EscrowInstructions,
  type EscrowTerms,
  type FinalityLevel,
  isAutomaticIdempotencyKey,
  notFound,
  type RescindInfo,
  TRANSACTION_STATUSES,
  type TransactionList,
  type TransactionListQuery,
  type TransactionStats,
  type TransferInstructions,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { addressErrors, uuidToOnchainId } from '@holdfast/escrow';
import { numberSourceOf } from '@holdfast/http-kit';
import { sha256 } from '@holdfast/secrets';
import type { Principal } from '../auth/index.js';
import { normalizeAmount, resolveNetwork, toBaseUnits } from '../money/index.js';
import { platformBillingOf, platformFinality, readPlatformSettings, requiredFinalityOf } from '../platforms/index.js';
import type { QuotesService } from '../quotes/index.js';
import { canonical } from './canonical.js';
import type { ControlsGate, PreparedTemplate } from './controls-gate.js';
import { createGroupCommit, createKeyLookups, type SettledCreation } from './group-commit.js';
import { newTransactionRef, type TransactionMoves, transactionEvent } from './moves.js';
import {
  type AnsweredRow,
  type NewTransaction,
  type SingleCreation,
  type TransactionRow,
  type TransactionsRepository,
  toPaymentsTransaction,
} from './repository.js';
import { SENDER_WINDOW_SECONDS, type SenderLimitsConfig, senderRules } from './sender-limits.js';

export type CreatedTransaction = ReturnType<typeof toPaymentsTransaction> & {
  rescind: RescindInfo;
  escrow?: EscrowInstructions;
  transfer?: TransferInstructions;
};

export interface TransactionsServiceDeps {
  sql: Sql;
  repository: TransactionsRepository;
  moves: TransactionMoves;
  controls: ControlsGate;
  quotes: QuotesService;
  appEnv: AppEnv;
  holdPeriodSeconds: number;
  /** The duplicate window and the per-sender limit (sender-limits.ts), shared with batches. */
  senderLimits: SenderLimitsConfig;
  /**
   * Group commit (ADR 39): the most creations one statement carries (1: off), and how long the first
   * of a group waits for others (0: those of the same event-loop turn).
   */
  groupCommit: { maxBatch: number; waitMs: number };
  /** Runs the outbox relay now: creation wakes it after its commit instead of a NOTIFY (ADR 32). */
  wakeRelay: () => void;
  /** The escrow contract, token and attester of a network (the settlement module's view of the chain). */
  escrowTerms?: (network: string, currency: string) => EscrowTerms;
}

/**
 * The hold period and rescind rules of a new transaction: the template's (`holdPeriodSeconds`,
 * `rescind`) or the defaults. The rescind deadline is the end of the hold, set by the creation
 * statement from the database's clock.
 */
export function holdAndRescindOf(
  orchestrationType: string,
  template: Record<string, unknown> | null,
  defaultHoldSeconds: number,
): { holdSeconds: number; rescind: Omit<RescindInfo, 'deadline'> } {
  const t = template ?? {};
  const holdSeconds =
    typeof t.holdPeriodSeconds === 'number' && Number.isInteger(t.holdPeriodSeconds) && t.holdPeriodSeconds >= 0
      ? t.holdPeriodSeconds
      : defaultHoldSeconds;
  const r = t.rescind && typeof t.rescind === 'object' ? (t.rescind as Record<string, unknown>) : {};
  return {
    holdSeconds,
    rescind: {
      allowed: orchestrationType === 'platform' && r.allowed !== false,
      requiresReason: r.requiresReason === true,
      notifyRecipient: r.notifyRecipient !== false,
    },
  };
}

export const toCreated = (row: AnsweredRow): CreatedTransaction => ({
  ...toPaymentsTransaction(row),
  rescind: (row.rescindPolicy as RescindInfo | null) ?? {
    allowed: false,
    deadline: row.holdDeadline ?? row.createdAt,
    requiresReason: false,
    notifyRecipient: false,
  },
});

/** What the sender's wallet signs for a `platform` transaction; none for a raw transfer. */
export function escrowInstructionsOf(row: AnsweredRow, terms: EscrowTerms): EscrowInstructions | undefined {
  if (row.orchestrationType !== 'platform') return undefined;
  const units = toBaseUnits(row.amount);
  return {
    ...terms,
    onchainId: uuidToOnchainId(row.id),
    amountBaseUnits: units === undefined ? null : units.toString(),
    holdDeadline: Math.floor(Date.parse(row.holdDeadline ?? row.createdAt) / 1000),
  };
}

/**
 * What the sender's wallet signs for a `raw` transaction: `pay` on the network's escrow contract,
 * whose `TransferForwarded` log names this transaction (docs/settlement.md); none for an escrow.
 */
export function transferInstructionsOf(row: AnsweredRow, terms: EscrowTerms): TransferInstructions | undefined {
  if (row.orchestrationType !== 'raw') return undefined;
  const units = toBaseUnits(row.amount);
  return {
    contractAddress: terms.contractAddress,
    tokenAddress: terms.tokenAddress,
    onchainId: uuidToOnchainId(row.id),
    receiver: row.toAddress,
    amountBaseUnits: units === undefined ? null : units.toString(),
  };
}

/** Thrown inside the creation transaction when the key's first result is found: nothing is kept. */
class Replay {
  constructor(readonly row: TransactionRow) {}
}

/**
 * How many times a creation statement runs when it keeps losing races to other creations of its
 * sender (each loss waited for the winner to commit, so this is far above what a sender's own
 * concurrency makes).
 */
const CREATION_ATTEMPTS = 20;

/** A whole day for a date, the instant for a date-time. */
function dayStart(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value;
}

export function createTransactionsService(deps: TransactionsServiceDeps) {
  const { sql, repository, moves, controls, quotes, appEnv, senderLimits } = deps;
  const created = (row: AnsweredRow): CreatedTransaction => {
    if (!deps.escrowTerms) return toCreated(row);
    const terms = deps.escrowTerms(row.blockchainNetwork, row.currency);
    const escrow = escrowInstructionsOf(row, terms);
    if (escrow) return { ...toCreated(row), escrow };
    const transfer = transferInstructionsOf(row, terms);
    return transfer ? { ...toCreated(row), transfer } : toCreated(row);
  };
  const senderWindow = senderLimits.perSender > 0 ? { seconds: SENDER_WINDOW_SECONDS, limit: senderLimits.perSender } : null;
  // A creation without a quote or a template is one statement of its own: those of the same moment
  // share one (and its commit). With a quote or a template it stays in its own transaction.
  const groupCommit = createGroupCommit({
    sql,
    repository,
    senderWindow,
    maxBatch: deps.groupCommit.maxBatch,
    waitMs: deps.groupCommit.waitMs,
    createAlone: (c) => createSingle(sql, c),
  });
  const keyLookups = createKeyLookups({ sql, repository, ...deps.groupCommit });

  /** The first result of an idempotency key, or 422 when the key was used with other parameters. */
  function replayOf(existing: AnsweredRow, fingerprint: string) {
    if (existing.requestFingerprint !== fingerprint) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was already used with other parameters', {
        field: 'idempotencyKey',
        transactionId: existing.id,
      });
    }
    return { transaction: created(existing), replayed: true };
  }

  async function create(
    principal: Pick<Principal, 'platformId' | 'workspaceId' | 'billing' | 'sandbox' | 'finality'>,
    body: CreateTransactionBody,
    headerKey?: string,
  ): Promise<{ transaction: CreatedTransaction; replayed: boolean }> {
    // 1. Everything the request alone decides, before any read or write.
    if (body.idempotencyKey !== undefined && headerKey !== undefined && body.idempotencyKey !== headerKey) {
      throw validationError([
        { field: 'idempotencyKey', reason: 'differs from the Idempotency-Key header; send one, or the same in both' },
      ]);
    }
    const idempotencyKey = body.idempotencyKey ?? headerKey ?? null;
    if (body.templateId && body.contractTemplateId && body.templateId !== body.contractTemplateId) {
      throw validationError([{ field: 'contractTemplateId', reason: 'is an alias of templateId and must not differ from it' }]);
    }
    const templateId = body.templateId ?? body.contractTemplateId;
    const currency = body.currency ?? 'USDC';
    const amount = normalizeAmount(body.amount, 'amount', { currency, source: numberSourceOf(body, 'amount') });
    const { network, chainId } = resolveNetwork(appEnv, body.blockchainNetwork, { sandbox: principal.sandbox });
    const orchestrationType = body.orchestrationType ?? 'platform';
    const signerType = body.signerType ?? null;
    const fromAddress = body.fromAddress.trim();
    const toAddress = body.toAddress.trim();
    // Each address is one of the network's (EVM with its EIP-55 checksum, or Solana), not stored as sent.
    const badAddresses = addressErrors(network, {
      fromAddress,
      toAddress,
      'billingConfig.feeWalletAddress': body.billingConfig?.feeWalletAddress,
    });
    if (badAddresses.length > 0) throw validationError(badAddresses);
    if (fromAddress.toLowerCase() === toAddress.toLowerCase())
      throw validationError([{ field: 'toAddress', reason: 'must differ from fromAddress' }]);

    const fingerprint = sha256(
      canonical({
        fromAddress: fromAddress.toLowerCase(),
        toAddress: toAddress.toLowerCase(),
        amount,
        currency,
        blockchainNetwork: network,
        orchestrationType,
        templateId,
        template: body.template,
        metadata: body.metadata ?? {},
        billingConfig: body.billingConfig,
        quoteId: body.quoteId,
        signerType,
        customerId: body.customerId,
        finality: body.finality,
      }),
    );

    // 2. Rules that read stored state but write nothing. A key seen before answers its first result
    // (or 422) whatever else is now true. A creation that is one statement of its own (no quote, no
    // template: the common case) is not looked up first: its statement checks the key anyway and
    // answers the first result (`existing`), so a first use, the usual request, pays one round trip
    // instead of two (issue 34; a retry pays the whole statement instead of one indexed read). With
    // a quote or a template the key is looked up first (the lookups of the same moment share one,
    // ADR 39): the quote's use and the template's controls must not run for a retry.
    const oneStatement = body.quoteId === undefined && templateId === undefined && body.template === undefined;
    if (idempotencyKey && !oneStatement) {
      const existing = await keyLookups.find(principal.platformId, idempotencyKey);
      if (existing) return replayOf(existing, fingerprint);
    }
    const actor = `platform:${principal.platformId}`;
    let prepared: PreparedTemplate;
    let requiredFinality: FinalityLevel | null = null;
    try {
      // Only an escrow waits for a level (a raw transfer is proven by its receipt's confirmations).
      if (orchestrationType === 'platform') {
        const rule =
          principal.finality !== undefined ? principal.finality : platformFinality(await readPlatformSettings(sql, principal.platformId));
        requiredFinality = requiredFinalityOf(rule, amount, body.finality);
      }
      const billing = principal.billing !== undefined ? principal.billing : await platformBillingOf(sql, principal.platformId);
      const billingEnabled = billing?.enabled === true || body.billingConfig?.isActive === true;
      if (billingEnabled && !body.quoteId)
        throw validationError([{ field: 'quoteId', reason: 'is required: billing is enabled (request one from /transactions/quote)' }]);
      prepared = await controls.prepare(principal.platformId, {
        ...(templateId ? { templateId } : {}),
        ...(body.template ? { template: body.template as Record<string, unknown> } : {}),
      });
    } catch (error) {
      const existing = idempotencyKey ? await repository.findByIdempotencyKey(sql, principal.platformId, idempotencyKey) : null;
      if (existing) return replayOf(existing, fingerprint);
      throw error;
    }

    // 3. The creation: one statement (ADR 32) checks the key, the duplicate window and the sender's
    // window and writes the row, its creation transition and its first event. A quote to use or a
    // template's controls to run join it in one database transaction.
    const id = uuidv7();
    const { holdSeconds, rescind } = holdAndRescindOf(orchestrationType, prepared.snapshot, deps.holdPeriodSeconds);
    const fresh = (quote: { id: string; fee: string | null } | null): NewTransaction => ({
      id,
      platformId: principal.platformId,
      workspaceId: principal.workspaceId ?? null,
      // An external wallet must sign before anything happens on chain: the user acts first.
      status: signerType === 'external_wallet' ? 'pending_user_action' : 'pending',
      amount,
      currency,
      fromAddress,
      toAddress,
      blockchainNetwork: network,
      chainId,
      orchestrationType,
      signerType,
      customerId: body.customerId ?? null,
      templateId: prepared.templateId,
      template: prepared.snapshot,
      billingConfig: (body.billingConfig as Record<string, unknown> | undefined) ?? null,
      quoteId: quote?.id ?? null,
      feeAmount: quote?.fee ?? null,
      metadata: body.metadata ?? {},
      idempotencyKey,
      requestFingerprint: fingerprint,
      requiredFinality,
    });
    const creation = (transaction: NewTransaction): SingleCreation => ({
      transaction,
      holdSeconds,
      rescindPolicy: rescind,
      actor,
      event: transactionEvent('transaction.created', transaction, { transaction: newTransactionRef(transaction) }),
      senderWindow,
      duplicateWindowSeconds:
        (idempotencyKey === null || isAutomaticIdempotencyKey(idempotencyKey)) && senderLimits.duplicateWindowSeconds > 0
          ? senderLimits.duplicateWindowSeconds
          : null,
    });
    /** The created row; a replay or a refusal throws (and so undoes the caller's transaction). */
    const createdRow = (outcome: SettledCreation): TransactionRow => {
      if (outcome.outcome === 'existing') throw new Replay(outcome.row);
      if (outcome.outcome === 'refused') {
        const { now, nthNewest, duplicateId } = outcome;
        senderRules(senderLimits, { transfers: [{ toAddress, amount }] }, { now, nthNewest, duplicateIds: [duplicateId] });
        throw new Error('the creation statement refused without a reason');
      }
      return outcome.row;
    };
    try {
      const row =
        body.quoteId === undefined && prepared.snapshot === null
          ? createdRow(await groupCommit.create(creation(fresh(null))))
          : await sql.begin(async (tx) => {
              const quote = body.quoteId
                ? await quotes.use(tx, principal.platformId, body.quoteId, { amount, currency, transactionId: id })
                : null;
              let created = createdRow(await createSingle(tx, creation(fresh(quote))));
              const outcome = await controls.afterCreate(tx, created, prepared);
              const alreadyWaiting = outcome.action === 'require_user_action' && created.status === 'pending_user_action';
              if (outcome.action && !alreadyWaiting) {
                created = (
                  await moves.move(tx, {
                    transactionId: id,
                    action: outcome.action,
                    actor,
                    platformId: principal.platformId,
                    reason: outcome.reason ?? null,
                    ...(outcome.action === 'fail_control' && outcome.reason ? { patch: { failureReason: outcome.reason } } : {}),
                  })
                ).after;
              }
              return created;
            });
      // Committed: the relay publishes the event now (another instance's relay learns of it by its poll).
      deps.wakeRelay();
      return { transaction: created(row), replayed: false };
    } catch (error) {
      if (error instanceof Replay) return replayOf(error.row, fingerprint);
      throw error;
    }
  }

  /**
   * The creation statement, run again while it loses races (`conflict`: a creation of the sender, or
   * of the key, committed after it read; each run sees more of them). Never `conflict`.
   */
  async function createSingle(q: Queryable, c: SingleCreation): Promise<SettledCreation> {
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await repository.createSingle(q, c);
      if (outcome.outcome !== 'conflict') return outcome;
      if (attempt >= CREATION_ATTEMPTS)
        throw new AppError('CONFLICT', 'Too many concurrent creations for this sender; retry the request', { field: 'fromAddress' });
    }
  }

  async function get(principal: Principal, id: string) {
    const row = await repository.findAnswered(sql, id, principal.platformId);
    if (!row) throw notFound('Transaction');
    return toPaymentsTransaction(row);
  }

  async function list(principal: Principal, query: TransactionListQuery): Promise<TransactionList> {
    const createdFrom = query.dateFrom ? dayStart(query.dateFrom) : undefined;
    const dateOnlyTo = query.dateTo && /^\d{4}-\d{2}-\d{2}$/.test(query.dateTo);
    const createdTo = query.dateTo && !dateOnlyTo ? query.dateTo : undefined;
    const createdBefore = dateOnlyTo ? new Date(Date.parse(`${query.dateTo}T00:00:00.000Z`) + 86_400_000).toISOString() : undefined;
    if (createdFrom && query.dateTo && Date.parse(createdFrom) > Date.parse(createdTo ?? createdBefore!)) {
      throw validationError([{ field: 'dateTo', reason: 'must not be before dateFrom' }]);
    }
    const { rows, total } = await repository.list(sql, principal.platformId, {
      page: query.page,
      limit: query.limit,
      ...(query.status ? { status: query.status } : {}),
      ...(query.fromAddress ? { fromAddress: query.fromAddress } : {}),
      ...(query.toAddress ? { toAddress: query.toAddress } : {}),
      ...(query.walletAddress ? { walletAddress: query.walletAddress } : {}),
      ...(query.customerId ? { customerId: query.customerId } : {}),
      ...(createdFrom ? { createdFrom } : {}),
      ...(createdTo ? { createdTo } : {}),
      ...(createdBefore ? { createdBefore } : {}),
    });
    return {
      data: rows.map(toPaymentsTransaction),
      pagination: { page: query.page, limit: query.limit, total, totalPages: total === 0 ? 0 : Math.ceil(total / query.limit) },
    };
  }

  async function stats(principal: Principal): Promise<TransactionStats> {
    const rows = await repository.stats(sql, principal.platformId);
    const out = Object.fromEntries(TRANSACTION_STATUSES.map((s) => [s, { count: 0, total_amount: '0' }])) as TransactionStats;
    for (const r of rows) out[r.status] = { count: r.count, total_amount: r.total };
    return out;
  }

  async function atRisk(principal: Principal): Promise<AtRiskReport> {
    const rows = await repository.atRisk(sql, principal.platformId, AT_RISK_STATUSES);
    const empty = { count: 0, totalAmount: '0', oldestAgeSeconds: null, over24h: 0, over72h: 0 };
    const out = Object.fromEntries(AT_RISK_STATUSES.map((s) => [s, { ...empty }])) as AtRiskReport;
    for (const r of rows) {
      out[r.status as (typeof AT_RISK_STATUSES)[number]] = {
        count: r.count,
        totalAmount: r.total,
        oldestAgeSeconds: r.oldest === null ? null : Math.max(0, r.oldest),
        over24h: r.over24h,
        over72h: r.over72h,
      };
    }
    return out;
  }

  return { create, get, list, stats, atRisk };
}
export type TransactionsService = ReturnType<typeof createTransactionsService>;
