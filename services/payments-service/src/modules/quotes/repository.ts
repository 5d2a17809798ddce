import type { Queryable } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { quotes } from './tables.js';

/** A quote as stored (the table's row type), and whether it had expired by the database's clock when read. */
export type QuoteRow = typeof quotes.$inferSelect & { expired: boolean };

/** A statement's rows: the table's columns and the `expired` it computes. */
type QuoteDbRow = Record<string, unknown> & { expired: boolean };

const toQuote = rowMapper(quotes);
const toQuoteRow = (r: QuoteDbRow): QuoteRow => ({ ...toQuote(r), expired: r.expired });

export function createQuotesRepository(sql: Queryable) {
  return {
    /** The platform's settings (its `billing` defaults). */

    async insert(
      quote: Omit<QuoteRow, 'usedAt' | 'transactionId' | 'expired' | 'expiresAt' | 'createdAt'>,
      ttlSeconds: number,
    ): Promise<QuoteRow> {
      const rows = await sql<QuoteDbRow[]>`
        insert into quotes (id, platform_id, amount, currency, blockchain_network, fee_type, fee_percentage, fee, total, billing_config, expires_at)
        values (${quote.id}, ${quote.platformId}, ${quote.amount}, ${quote.currency}, ${quote.blockchainNetwork}, ${quote.feeType},
                ${quote.feePercentage}, ${quote.fee}, ${quote.total},
                ${quote.billingConfig === null ? null : JSON.stringify(quote.billingConfig)}::text::jsonb,
                now() + make_interval(secs => ${ttlSeconds}))
        returning *, false as expired`;
      return toQuoteRow(rows[0]!);
    },

    /** The platform's quote, locked until the caller's transaction ends (a quote is used once). */
    async lock(tx: Queryable, id: string, platformId: string): Promise<QuoteRow | null> {
      const rows = await tx<QuoteDbRow[]>`
        select *, expires_at <= clock_timestamp() as expired from quotes
        where id = ${id} and platform_id = ${platformId} for update`;
      return rows[0] ? toQuoteRow(rows[0]) : null;
    },

    async markUsed(tx: Queryable, id: string, transactionId: string): Promise<void> {
      await tx`update quotes set used_at = clock_timestamp(), transaction_id = ${transactionId} where id = ${id} and used_at is null`;
    },
  };
}
export type QuotesRepository = ReturnType<typeof createQuotesRepository>;
