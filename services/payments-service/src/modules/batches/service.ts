import {
  type AppEnv,
  AppError,
  type Batch,
  type BatchCreated,
  type BatchLeg,
  type BatchList,
  type BatchListQuery,
  type BatchNextAction,
  type BatchWithLegs,
  type CreateBatchBody,
  type EscrowTerms,
  type FieldError,
  isAutomaticIdempotencyKey,
  notFound,
  paginationMeta,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import { appendToOutboxSql } from '@holdfast/db';
import { addressErrors, uuidToOnchainId } from '@holdfast/escrow';
import { numberSourceOf } from '@holdfast/http-kit';
import { sha256 } from '@holdfast/secrets';
import { SCHEMA_NAME } from '../../db/pg-schema.js';
import type { Principal } from '../auth/index.js';
import { normalizeAmount, resolveNetwork, sumDecimals, toBaseUnits } from '../money/index.js';
import { platformFinality, readPlatformSettings, requiredFinalityOf } from '../platforms/index.js';
import {
  type CheckSender,
  type ControlsGate,
  canonical,
  noControls,
  type TransactionRow,
  toPaymentsTransaction,
  transactionEvent,
  transactionRef,
} from '../transactions/index.js';
import type { BatchesRepository, BatchRow, NewBatch } from './repository.js';

function toBatch(row: BatchRow): Batch {
  const { workspaceId, template, requestFingerprint, ...batch } = row;
  return batch;
}

function toLeg(row: TransactionRow): BatchLeg {
  return { ...toPaymentsTransaction(row), legIndex: row.legIndex ?? 0, onchainId: uuidToOnchainId(row.id) };
}

function nextActionOf(
  batch: BatchRow,
  legs: readonly TransactionRow[],
  terms: ((network: string, currency: string) => EscrowTerms) | undefined,
  holdPeriodSeconds: number,
): BatchNextAction {
  const common = {
    totalAmount: batch.totalAmount,
    ids: legs.map((l) => uuidToOnchainId(l.id)),
    receivers: legs.map((l) => l.toAddress),
    amounts: legs.map((l) => l.amount),
  };
  if (batch.orchestrationType === 'raw') {
    return {
      type: 'send_transfers',
      description: `From ${batch.fromAddress}, send each leg's amount of ${batch.currency} to its receiver on ${batch.blockchainNetwork}, then submit each transfer's hash on its leg.`,
      ...common,
    };
  }
  const units = legs.map((l) => toBaseUnits(l.amount));
  const escrow = terms && {
    ...terms(batch.blockchainNetwork, batch.currency),
    amountsBaseUnits: units.map((u) => (u === undefined ? null : u.toString())),
    totalBaseUnits: units.every((u): u is bigint => u !== undefined) ? units.reduce((a, b) => a + b, 0n).toString() : null,
    holdDeadline: Math.floor(Date.parse(batchHoldDeadline(batch.createdAt, holdPeriodSeconds)) / 1000),
  };
  return {
    ...(escrow ? { escrow } : {}),
    type: 'create_batch_escrow',
    description: `From ${batch.fromAddress} on ${batch.blockchainNetwork}: approve the escrow contract for ${batch.totalAmount} ${batch.currency}, then call createBatch(ids, receivers, amounts, token, attester, holdDeadline) with the legs in this order (amounts in the token's units). Each leg moves to escrowed when its escrow-created event is observed.`,
    ...common,
  };
}

/** The hold deadline of a batch's escrows: its creation (whole seconds) plus the hold period. */
function batchHoldDeadline(createdAt: string, holdPeriodSeconds: number): string {
  return new Date((Math.floor(Date.parse(createdAt) / 1000) + holdPeriodSeconds) * 1000).toISOString();
}

export interface CreateBatchOutcome {
  batch: BatchCreated;
  /** True when the idempotency key named an existing batch (nothing was created). */
  replayed: boolean;
}

export function createBatchesService(deps: {
  repository: BatchesRepository;
  appEnv: AppEnv;
  maxLegs: number;
  /** The duplicate window and the per-sender limit of single transactions; each leg counts as one. */
  checkSender: CheckSender;
  controls?: ControlsGate;
  /** The escrow contract, token and attester of a network (the settlement module's view of the chain). */
  escrowTerms?: (network: string, currency: string) => EscrowTerms;
  /** The hold period the signer puts in `createBatch` (the default of single transactions). */
  holdPeriodSeconds?: number;
}) {
  const { repository, appEnv, maxLegs } = deps;
  const controls = deps.controls ?? noControls;
  const holdPeriod = deps.holdPeriodSeconds ?? 7 * 24 * 3600;

  /** Every rule that needs no stored state, all legs checked: one 400 names every bad field. */
  function validate(body: CreateBatchBody, idempotencyKey: string | undefined, sandbox: boolean) {
    const errors: FieldError[] = [];
    if ((body.signerType ?? 'external_wallet') !== 'external_wallet') {
      errors.push({ field: 'signerType', reason: 'must be external_wallet: custodial batches are not supported' });
    }
    if (body.legs.length > maxLegs) {
      errors.push({ field: 'legs', reason: `must have at most ${maxLegs} legs (got ${body.legs.length})` });
    }
    if (body.idempotencyKey !== undefined && idempotencyKey !== undefined && body.idempotencyKey !== idempotencyKey) {
      errors.push({ field: 'idempotencyKey', reason: 'differs from the Idempotency-Key header' });
    }
    const { network, chainId } = resolveNetwork(appEnv, body.blockchainNetwork, { sandbox });
    errors.push(...addressErrors(network, { fromAddress: body.fromAddress }));
    const amounts: string[] = [];
    body.legs.forEach((leg, i) => {
      const legAddress = addressErrors(network, { [`legs.${i}.toAddress`]: leg.toAddress });
      if (legAddress.length > 0) {
        errors.push(...legAddress);
      } else if (leg.toAddress.toLowerCase() === body.fromAddress.toLowerCase()) {
        errors.push({ field: `legs.${i}.toAddress`, reason: 'must differ from fromAddress' });
      }
      try {
        amounts.push(
          normalizeAmount(leg.amount, `legs.${i}.amount`, { currency: body.currency ?? 'USDC', source: numberSourceOf(leg, 'amount') }),
        );
      } catch (error) {
        const details = error instanceof AppError ? (error.details as { errors?: FieldError[] } | undefined) : undefined;
        if (!details?.errors) throw error;
        errors.push(...details.errors);
      }
    });
    if (errors.length > 0) throw validationError(errors);
    return { network, chainId, amounts };
  }

  async function existing(principal: Principal, key: string, fingerprint: string): Promise<CreateBatchOutcome | null> {
    const found = await repository.findByIdempotencyKey(repository.sql, principal.platformId, key);
    if (!found) return null;
    if (found.requestFingerprint !== fingerprint) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used for a batch with other parameters', {
        batchId: found.id,
      });
    }
    const legs = await repository.legs(repository.sql, found.id);
    return {
      batch: { ...toBatch(found), legs: legs.map(toLeg), nextAction: nextActionOf(found, legs, deps.escrowTerms, holdPeriod) },
      replayed: true,
    };
  }

  return {
    /**
     * Creates the batch and all its legs in one database transaction, with a `transaction.created`
     * event per leg; any invalid leg writes nothing. A known idempotency key answers the batch it made.
     */
    async create(principal: Principal, body: CreateBatchBody, headerKey?: string): Promise<CreateBatchOutcome> {
      const { network, chainId, amounts } = validate(body, headerKey, principal.sandbox);
      const idempotencyKey = body.idempotencyKey ?? headerKey ?? null;
      const prepared = await controls.prepare(principal.platformId, {
        ...(body.templateId ? { templateId: body.templateId } : {}),
        ...(body.template ? { template: body.template } : {}),
      });
      const id = uuidv7();
      const batch: NewBatch = {
        id,
        platformId: principal.platformId,
        workspaceId: principal.workspaceId,
        fromAddress: body.fromAddress,
        currency: body.currency ?? 'USDC',
        blockchainNetwork: network,
        chainId,
        orchestrationType: body.orchestrationType ?? 'platform',
        signerType: 'external_wallet',
        templateId: prepared.templateId,
        template: prepared.snapshot,
        customerId: body.customerId ?? null,
        idempotencyKey,
        requestFingerprint: '',
        metadata: body.metadata ?? {},
        totalAmount: sumDecimals(amounts),
        legs: body.legs.map((leg, i) => ({
          id: uuidv7(),
          legIndex: i,
          toAddress: leg.toAddress,
          amount: amounts[i] ?? '0',
          metadata: leg.metadata ?? {},
        })),
      };
      batch.requestFingerprint = sha256(
        canonical({
          fromAddress: batch.fromAddress,
          currency: batch.currency,
          blockchainNetwork: batch.blockchainNetwork,
          orchestrationType: batch.orchestrationType,
          signerType: batch.signerType,
          templateId: batch.templateId,
          template: batch.template,
          customerId: batch.customerId,
          metadata: batch.metadata,
          legs: batch.legs.map((l) => ({ toAddress: l.toAddress, amount: l.amount, metadata: l.metadata })),
        }),
      );

      if (idempotencyKey) {
        const replay = await existing(principal, idempotencyKey, batch.requestFingerprint);
        if (replay) return replay;
      }

      const finalityRule =
        principal.finality !== undefined
          ? principal.finality
          : platformFinality(await readPlatformSettings(repository.sql, principal.platformId));
      const created = await repository.transaction(async (tx) => {
        await deps.checkSender(tx, {
          platformId: principal.platformId,
          fromAddress: batch.fromAddress,
          currency: batch.currency,
          blockchainNetwork: batch.blockchainNetwork,
          transfers: batch.legs.map((l, i) => ({ toAddress: l.toAddress, amount: l.amount, field: `legs.${i}` })),
          // An automatic key (a client library's) replays, but does not say the repeat is meant.
          idempotent: idempotencyKey !== null && !isAutomaticIdempotencyKey(idempotencyKey),
        });
        const row = await repository.insertBatch(tx, batch);
        if (!row) return null; // a concurrent request with the same key won; nothing written here
        // Each leg keeps the hold deadline `createBatch` is told (nextActionOf): its escrow must have it.
        const legs = await repository.insertLegs(
          tx,
          batch,
          row.orchestrationType === 'platform' ? batchHoldDeadline(row.createdAt, holdPeriod) : null,
          // Each leg counts at the platform's level, raised by its threshold for the leg's amount.
          row.orchestrationType === 'platform' ? (amount) => requiredFinalityOf(finalityRule, amount, undefined) : undefined,
        );
        await appendToOutboxSql(
          tx,
          SCHEMA_NAME,
          legs.map((leg) => transactionEvent('transaction.created', leg, { transaction: transactionRef(leg) })),
        );
        return { row, legs };
      });
      if (!created) {
        const replay = idempotencyKey ? await existing(principal, idempotencyKey, batch.requestFingerprint) : null;
        if (!replay) throw new Error('batch insert conflicted without an existing batch');
        return replay;
      }
      return {
        batch: {
          ...toBatch(created.row),
          legs: created.legs.map(toLeg),
          nextAction: nextActionOf(created.row, created.legs, deps.escrowTerms, holdPeriod),
        },
        replayed: false,
      };
    },

    /** The platform's batches, newest first, without legs. */
    async list(principal: Principal, query: BatchListQuery): Promise<BatchList> {
      if (query.dateFrom && query.dateTo && Date.parse(query.dateFrom) > Date.parse(query.dateTo)) {
        throw validationError([{ field: 'dateTo', reason: 'must not be before dateFrom' }]);
      }
      const { rows, total } = await repository.list(repository.sql, principal.platformId, query);
      return { data: rows.map(toBatch), pagination: paginationMeta(query.page, query.limit, total) };
    },

    /** One batch of the platform with its legs in leg order; another platform's answers 404. */
    async get(principal: Principal, id: string): Promise<BatchWithLegs> {
      const row = await repository.find(repository.sql, id, principal.platformId);
      if (!row) throw notFound('Batch');
      const legs = await repository.legs(repository.sql, row.id);
      return { ...toBatch(row), legs: legs.map(toLeg) };
    },
  };
}
export type BatchesService = ReturnType<typeof createBatchesService>;
