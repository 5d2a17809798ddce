import type { PaymentsTransaction, TransactionStatus } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { isoOf } from '../auth/repository.js';
import type { BatchStatus } from './state-machine.js';

/** A transaction row as the service uses it (the API record without the create-time `rescind`). */
export type TransactionRow = Omit<PaymentsTransaction, 'rescind'> & {
  workspaceId: string | null;
  legIndex: number | null;
  template: Record<string, unknown> | null;
  rescindPolicy: Record<string, unknown> | null;
  requestFingerprint: string | null;
  version: number;
  statusChangedAt: string;
};

interface Row {
  id: string;
  platform_id: string;
  workspace_id: string | null;
  status: TransactionStatus;
  amount: string;
  currency: PaymentsTransaction['currency'];
  from_address: string;
  to_address: string;
  blockchain_network: PaymentsTransaction['blockchainNetwork'];
  chain_id: number | null;
  orchestration_type: PaymentsTransaction['orchestrationType'];
  signer_type: PaymentsTransaction['signerType'];
  customer_id: string | null;
  template_id: string | null;
  template: Record<string, unknown> | null;
  billing_config: Record<string, unknown> | null;
  quote_id: string | null;
  fee_amount: string | null;
  metadata: Record<string, unknown>;
  idempotency_key: string | null;
  request_fingerprint: string | null;
  batch_id: string | null;
  leg_index: number | null;
  tx_hash: string | null;
  escrow_address: string | null;
  hold_deadline: string | Date | null;
  rescind_policy: Record<string, unknown> | null;
  failure_reason: string | null;
  version: number;
  status_changed_at: string | Date;
  created_at: string | Date;
  updated_at: string | Date;
}

/** Maps a `select *` row of `transactions` (postgres.js, snake case) to a TransactionRow. */
export function toTransactionRow(r: Row): TransactionRow {
  return {
    id: r.id,
    platformId: r.platform_id,
    workspaceId: r.workspace_id,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    fromAddress: r.from_address,
    toAddress: r.to_address,
    blockchainNetwork: r.blockchain_network,
    chainId: r.chain_id,
    orchestrationType: r.orchestration_type,
    signerType: r.signer_type,
    customerId: r.customer_id,
    templateId: r.template_id,
    template: r.template,
    billingConfig: r.billing_config,
    quoteId: r.quote_id,
    feeAmount: r.fee_amount,
    metadata: r.metadata,
    idempotencyKey: r.idempotency_key,
    requestFingerprint: r.request_fingerprint,
    batchId: r.batch_id,
    legIndex: r.leg_index,
    txHash: r.tx_hash,
    escrowAddress: r.escrow_address,
    holdDeadline: r.hold_deadline === null ? null : isoOf(r.hold_deadline),
    rescindPolicy: r.rescind_policy,
    failureReason: r.failure_reason,
    version: r.version,
    statusChangedAt: isoOf(r.status_changed_at),
    createdAt: isoOf(r.created_at),
    updatedAt: isoOf(r.updated_at),
  };
}

/** The API record of a row (what GET answers). */
export function toPaymentsTransaction(row: TransactionRow): PaymentsTransaction {
  const { workspaceId, legIndex, template, rescindPolicy, requestFingerprint, version, statusChangedAt, ...record } = row;
  return record;
}

/** Columns a move may set besides the status (the chain facts, the failure reason). */
export interface MovePatch {
  txHash?: string;
  escrowAddress?: string;
  chainId?: number;
  failureReason?: string;
  holdDeadline?: string;
}

export function createTransactionsRepository() {
  return {
    /** The row, locked until the caller's transaction ends (`for update`): moves cannot interleave. */
    async lock(tx: Queryable, id: string, platformId?: string): Promise<TransactionRow | null> {
      const rows = await tx<Row[]>`
        select * from transactions where id = ${id} ${platformId ? tx`and platform_id = ${platformId}` : tx``} for update`;
      return rows[0] ? toTransactionRow(rows[0]) : null;
    },

    async find(q: Queryable, id: string, platformId?: string): Promise<TransactionRow | null> {
      const rows = await q<Row[]>`
        select * from transactions where id = ${id} ${platformId ? q`and platform_id = ${platformId}` : q``}`;
      return rows[0] ? toTransactionRow(rows[0]) : null;
    },

    /** Writes a move decided by the state machine; the row must be locked by the caller's transaction. */
    async applyMove(
      tx: Queryable,
      input: {
        id: string;
        from: TransactionStatus;
        to: TransactionStatus;
        action: string;
        actor: string;
        reason: string | null;
        eventId: string | null;
        patch: MovePatch;
      },
    ): Promise<TransactionRow> {
      const p = input.patch;
      const rows = await tx<Row[]>`
        update transactions set
          status = ${input.to},
          tx_hash = coalesce(${p.txHash ?? null}, tx_hash),
          escrow_address = coalesce(${p.escrowAddress ?? null}, escrow_address),
          chain_id = coalesce(${p.chainId ?? null}::int, chain_id),
          failure_reason = coalesce(${p.failureReason ?? null}, failure_reason),
          hold_deadline = coalesce(${p.holdDeadline ?? null}::timestamptz, hold_deadline),
          version = version + 1,
          status_changed_at = now(),
          updated_at = now()
        where id = ${input.id} and status = ${input.from}
        returning *`;
      const row = rows[0];
      if (!row) throw new Error(`transaction ${input.id} was not in ${input.from}: the caller must hold its row lock`);
      await tx`
        insert into transaction_transitions (transaction_id, from_status, to_status, action, actor, reason, event_id)
        values (${input.id}, ${input.from}, ${input.to}, ${input.action}, ${input.actor}, ${input.reason}, ${input.eventId})`;
      return toTransactionRow(row);
    },

    /** Re-derives a batch's status from its legs (in the transaction that moved a leg). */
    async legStatuses(tx: Queryable, batchId: string): Promise<TransactionStatus[]> {
      const rows = await tx<
        { status: TransactionStatus }[]
      >`select status from transactions where batch_id = ${batchId} order by leg_index`;
      return rows.map((r) => r.status);
    },

    async setBatchStatus(tx: Queryable, batchId: string, status: BatchStatus): Promise<void> {
      await tx`update batches set status = ${status}, updated_at = now() where id = ${batchId} and status <> ${status}`;
    },
  };
}
export type TransactionsRepository = ReturnType<typeof createTransactionsRepository>;
