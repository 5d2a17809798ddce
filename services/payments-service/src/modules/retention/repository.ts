import { type Sql, sweepInBatches } from '@holdfast/db';

/** Rows deleted per statement, so that no statement holds locks for long. */
export const RETENTION_BATCH = 1000;

/** How long payments keeps its short-lived rows after they stopped mattering (docs/operations.md, "Retention"). */
export interface PaymentsRetentionHorizons {
  /** OAuth access tokens: kept this long after `expires_at` (a revoked token expires within its hour anyway). */
  tokenSeconds: number;
  /** Unused fee quotes: kept this long after `expires_at`. A used quote is kept with its transaction. */
  quoteSeconds: number;
  /** One-time-code deliveries that finished (sent, failed or dropped): kept this long after their last attempt. */
  codeDeliverySeconds: number;
}

export interface PaymentsRetentionResult {
  oauthTokens: number;
  quotes: number;
  codeDeliveries: number;
  idempotentRequests: number;
}

/** Idempotency-Keys of the operations that take one are replayed for this long (docs/idempotency.md). */
export const IDEMPOTENT_REQUEST_SECONDS = 24 * 3600;

export type PaymentsRetentionRepository = ReturnType<typeof createPaymentsRetentionRepository>;

/**
 * Deletes what is past its horizon. `applied_chain_messages` is deliberately not here: it is the
 * at-most-once record of CHAIN messages, and a correction (a reindex after a chain reset) may name
 * a message of any age (docs/operations.md, "Retention").
 */
export function createPaymentsRetentionRepository(sql: Sql, options: { batch?: number } = {}) {
  const batch = options.batch ?? RETENTION_BATCH;
  return {
    /** One pass by one instance at a time (an advisory lock); undefined when another instance holds it. */
    sweep: (h: PaymentsRetentionHorizons): Promise<PaymentsRetentionResult | undefined> =>
      sweepInBatches(sql, 'payments:retention', batch, async (conn, inBatches) => {
        const oauthTokens = await inBatches(
          () => conn`
              delete from oauth_tokens where id in (
                select id from oauth_tokens where expires_at < now() - make_interval(secs => ${h.tokenSeconds}) limit ${batch})
              returning 1`,
        );
        // A used quote is the fee record of its transaction (transactions.quote_id): never deleted here.
        const quotes = await inBatches(
          () => conn`
              delete from quotes where id in (
                select id from quotes
                where used_at is null and transaction_id is null and expires_at < now() - make_interval(secs => ${h.quoteSeconds})
                limit ${batch})
              returning 1`,
        );
        // A pending or sending row is still to be delivered: only finished ones go. Their sealed code
        // is already wiped; what is left (status, message id, last error) answers "where is my code?".
        // Counted from the last attempt (sent_at, else the attempt's scheduled time): the row ended then.
        const codeDeliveries = await inBatches(
          () => conn`
              delete from code_deliveries where challenge_id in (
                select challenge_id from code_deliveries
                where status in ('sent', 'failed', 'dropped')
                  and coalesce(sent_at, next_attempt_at) < now() - make_interval(secs => ${h.codeDeliverySeconds})
                limit ${batch})
              returning 1`,
        );
        // A key is replayed for 24 h from its first request; a key still `running` that old was lost with its process.
        const idempotentRequests = await inBatches(
          () => conn`
              delete from idempotent_requests where (platform_id, key) in (
                select platform_id, key from idempotent_requests
                where created_at < now() - make_interval(secs => ${IDEMPOTENT_REQUEST_SECONDS})
                limit ${batch})
              returning 1`,
        );
        return { oauthTokens, quotes, codeDeliveries, idempotentRequests };
      }),
  };
}
