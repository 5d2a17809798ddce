import type { Quote } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { isoOf } from '@holdfast/db';

export interface QuoteRow {
  id: string;
  platformId: string;
  amount: string;
  currency: Quote['currency'];
  blockchainNetwork: Quote['blockchainNetwork'];
  feeType: Quote['feeType'];
  feePercentage: string;
  fee: string;
  total: string;
  billingConfig: Record<string, unknown> | null;
  expiresAt: string;
  usedAt: string | null;
  transactionId: string | null;
  expired: boolean;
}

interface Row {
  id: string;
  platform_id: string;
  amount: string;
  currency: Quote['currency'];
  blockchain_network: Quote['blockchainNetwork'];
  fee_type: Quote['feeType'];
  fee_percentage: string;
  fee: string;
  total: string;
  billing_config: Record<string, unknown> | null;
  expires_at: string | Date;
  used_at: string | Date | null;
  transaction_id: string | null;
  expired: boolean;
}

const toQuoteRow = (r: Row): QuoteRow => ({
  id: r.id,
  platformId: r.platform_id,
  amount: r.amount,
  currency: r.currency,
  blockchainNetwork: r.blockchain_network,
  feeType: r.fee_type,
  feePercentage: r.fee_percentage,
  fee: r.fee,
  total: r.total,
  billingConfig: r.billing_config,
  expiresAt: isoOf(r.expires_at),
  usedAt: r.used_at === null ? null : isoOf(r.used_at),
  transactionId: r.transaction_id,
  expired: r.expired,
});

export function createQuotesRepository(sql: Queryable) {
  return {
    /** The platform's settings (its `billing` defaults). */

    async insert(quote: Omit<QuoteRow, 'usedAt' | 'transactionId' | 'expired' | 'expiresAt'>, ttlSeconds: number): Promise<QuoteRow> {
      const rows = await sql<Row[]>`
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
      const rows = await tx<Row[]>`
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
