import type { BatchListQuery, FinalityLevel } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { batches, type TransactionRow, toTransactionRow } from '../transactions/index.js';

/** A batch as stored: the table's row type. */
export type BatchRow = typeof batches.$inferSelect;
const toBatchRow = rowMapper(batches);

/** A batch to insert: the row's own fields (the database sets status, counts and times), with its legs. */
export interface NewBatch extends Omit<BatchRow, 'status' | 'requestFingerprint' | 'legCount' | 'createdAt' | 'updatedAt'> {
  requestFingerprint: string;
  legs: { id: string; legIndex: number; toAddress: string; amount: string; metadata: Record<string, unknown> }[];
}

/** Newly created batches and legs start here: the external wallet must sign the batch escrow call. */
const INITIAL_STATUS = 'pending_user_action';

export function createBatchesRepository(sql: Sql) {
  return {
    /** The pool, for reads outside a transaction. */
    sql: sql as Queryable,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => sql.begin((tx) => fn(tx)) as Promise<T>,

    /**
     * Inserts the batch, or nothing when the platform already has a batch with this idempotency key
     * (answers null). A concurrent insert of the same key waits for the other transaction and then
     * sees its row (`batches_idempotency_unique`), so one key makes exactly one batch.
     */
    async insertBatch(tx: Queryable, b: NewBatch): Promise<BatchRow | null> {
      const rows = await tx`
        insert into batches (id, platform_id, workspace_id, status, from_address, currency, blockchain_network, chain_id,
          orchestration_type, signer_type, template_id, template, customer_id, idempotency_key, request_fingerprint,
          metadata, leg_count, total_amount)
        values (${b.id}, ${b.platformId}, ${b.workspaceId}, ${INITIAL_STATUS}, ${b.fromAddress}, ${b.currency},
          ${b.blockchainNetwork}, ${b.chainId}, ${b.orchestrationType}, ${b.signerType}, ${b.templateId},
          ${b.template === null ? null : JSON.stringify(b.template)}::text::jsonb, ${b.customerId}, ${b.idempotencyKey},
          ${b.requestFingerprint}, ${JSON.stringify(b.metadata)}::text::jsonb, ${b.legs.length}, ${b.totalAmount}::numeric)
        on conflict (platform_id, idempotency_key) where idempotency_key is not null do nothing
        returning *`;
      return rows[0] ? toBatchRow(rows[0]) : null;
    },

    /**
     * Inserts every leg of a batch as a transaction, in one statement; answers them in leg order. The
     * legs take the sender's next `sender_seq` numbers (read under the sender's lock, checkSender).
     */
    async insertLegs(
      tx: Queryable,
      b: NewBatch,
      holdDeadline: string | null,
      /** The level each leg counts at (docs/transactions.md, finality); null: `confirmed`. */
      requiredFinalityOf: (amount: string) => FinalityLevel | null = () => null,
    ): Promise<TransactionRow[]> {
      const legs = JSON.stringify(
        b.legs.map((l) => ({
          id: l.id,
          leg_index: l.legIndex,
          to_address: l.toAddress,
          amount: l.amount,
          metadata: l.metadata,
          required_finality: requiredFinalityOf(l.amount),
        })),
      );
      const rows = await tx<Parameters<typeof toTransactionRow>[0][]>`
        with last as (
          select coalesce(max(sender_seq), 0) as seq from transactions
          where platform_id = ${b.platformId} and lower(from_address) = ${b.fromAddress.toLowerCase()})
        insert into transactions (id, platform_id, workspace_id, status, amount, currency, from_address, to_address,
          blockchain_network, chain_id, orchestration_type, signer_type, customer_id, template_id, template, metadata,
          batch_id, leg_index, sender_seq, hold_deadline, required_finality)
        select l.id, ${b.platformId}, ${b.workspaceId}, ${INITIAL_STATUS}, l.amount::numeric, ${b.currency}, ${b.fromAddress},
          l.to_address, ${b.blockchainNetwork}, ${b.chainId}, ${b.orchestrationType}, ${b.signerType}, ${b.customerId},
          ${b.templateId}, ${b.template === null ? null : JSON.stringify(b.template)}::text::jsonb, l.metadata, ${b.id}, l.leg_index,
          last.seq + l.leg_index + 1, ${holdDeadline}::timestamptz, l.required_finality
        from jsonb_to_recordset(${legs}::text::jsonb)
          as l(id uuid, leg_index int, to_address text, amount text, metadata jsonb, required_finality text), last
        returning *`;
      return rows.map(toTransactionRow).sort((x, y) => (x.legIndex ?? 0) - (y.legIndex ?? 0));
    },

    async findByIdempotencyKey(q: Queryable, platformId: string, key: string): Promise<BatchRow | null> {
      const rows = await q`select * from batches where platform_id = ${platformId} and idempotency_key = ${key}`;
      return rows[0] ? toBatchRow(rows[0]) : null;
    },

    async find(q: Queryable, id: string, platformId: string): Promise<BatchRow | null> {
      const rows = await q`select * from batches where id = ${id} and platform_id = ${platformId}`;
      return rows[0] ? toBatchRow(rows[0]) : null;
    },

    async legs(q: Queryable, batchId: string): Promise<TransactionRow[]> {
      const rows = await q<Parameters<typeof toTransactionRow>[0][]>`
        select * from transactions where batch_id = ${batchId} order by leg_index`;
      return rows.map(toTransactionRow);
    },

    /** One page of the platform's batches, newest first, and the number matching the filters. */
    async list(q: Queryable, platformId: string, query: BatchListQuery): Promise<{ rows: BatchRow[]; total: number }> {
      const where = () => q`
        platform_id = ${platformId}
        ${query.status ? q`and status = ${query.status}` : q``}
        ${query.fromAddress ? q`and lower(from_address) = ${query.fromAddress.toLowerCase()}` : q``}
        ${query.customerId ? q`and customer_id = ${query.customerId}` : q``}
        ${query.dateFrom ? q`and created_at >= ${query.dateFrom}::timestamptz` : q``}
        ${query.dateTo ? q`and created_at <= ${query.dateTo}::timestamptz` : q``}`;
      const [rows, count] = await Promise.all([
        q`select * from batches where ${where()} order by created_at desc, id desc
          limit ${query.limit} offset ${(query.page - 1) * query.limit}`,
        q<{ total: number }[]>`select count(*)::int as total from batches where ${where()}`,
      ]);
      return { rows: rows.map(toBatchRow), total: count[0]?.total ?? 0 };
    },
  };
}
export type BatchesRepository = ReturnType<typeof createBatchesRepository>;
