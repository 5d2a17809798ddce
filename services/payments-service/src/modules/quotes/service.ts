import {
  type AppEnv,
  AppError,
  type BillingConfig,
  type Currency,
  notFound,
  type Quote,
  type QuoteBody,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { numberSourceOf } from '@holdfast/http-kit';
import type { Principal } from '../auth/index.js';
import {
  compareDecimal,
  decimalsOf,
  decimalUnits,
  normalizeAmount,
  resolveNetwork,
  roundHalfUp,
  sumDecimals,
  trimDecimal,
} from '../money/index.js';
import { platformBillingOf } from '../platforms/index.js';
import type { QuoteRow, QuotesRepository } from './repository.js';

const PERCENT = /^(100(\.0+)?|\d{1,2}(\.\d{1,6})?)$/;
const FIXED = /^\d{1,7}(\.\d{1,18})?$/;

function decimalText(value: number | string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? String(value) : value.trim();
}

/** The fee of `amount` under a billing configuration, exactly (no floating point), rounded half up to the token's decimals. */
export function feeOf(
  amount: string,
  currency: Currency,
  billing: BillingConfig,
): { feeType: Quote['feeType']; feePercentage: string; fee: string } {
  const feeType = billing.feeType ?? 'percentage';
  if (feeType === 'fixed') {
    const fixed = decimalText(billing.fixedFee, '0');
    if (!FIXED.test(fixed)) throw validationError([{ field: 'billingConfig.fixedFee', reason: 'must be a non-negative decimal' }]);
    return { feeType, feePercentage: '0', fee: roundHalfUp(decimalUnits(fixed).n, decimalUnits(fixed).scale, decimalsOf(currency)) };
  }
  const pct = decimalText(billing.feePercentage, '0');
  if (!PERCENT.test(pct))
    throw validationError([{ field: 'billingConfig.feePercentage', reason: 'must be a decimal from 0 to 100 with at most 6 decimals' }]);
  const a = decimalUnits(amount);
  const p = decimalUnits(pct);
  // amount * pct / 100: the product at scale a+p, divided by 100 = two more decimals.
  return { feeType, feePercentage: trimDecimal(pct), fee: roundHalfUp(a.n * p.n, a.scale + p.scale + 2, decimalsOf(currency)) };
}

const toQuote = (q: QuoteRow): Quote => ({
  quoteId: q.id,
  amount: q.amount,
  fee: q.fee,
  total: q.total,
  currency: q.currency,
  blockchainNetwork: q.blockchainNetwork,
  feeType: q.feeType,
  feePercentage: q.feePercentage,
  expiresAt: q.expiresAt,
});

export function createQuotesService(deps: { repository: QuotesRepository; sql: Queryable; appEnv: AppEnv; ttlSeconds: number }) {
  const { repository, sql, appEnv, ttlSeconds } = deps;

  return {
    /** POST /transactions/quote: the fee of an amount, valid for `ttlSeconds`, usable by one create. */
    async quote(principal: Principal, body: QuoteBody): Promise<Quote> {
      const amount = normalizeAmount(body.amount, 'amount', { currency: body.currency, source: numberSourceOf(body, 'amount') });
      const { network } = resolveNetwork(appEnv, body.blockchainNetwork, { sandbox: principal.sandbox });
      if (body.billingConfig?.currency && body.billingConfig.currency !== body.currency) {
        throw validationError([{ field: 'billingConfig.currency', reason: 'must be the currency of the amount (fees are charged in it)' }]);
      }
      const billing = body.billingConfig ?? (await platformBillingOf(sql, principal.platformId)) ?? {};
      const { feeType, feePercentage, fee } = feeOf(amount, body.currency, billing);
      const row = await repository.insert(
        {
          id: uuidv7(),
          platformId: principal.platformId,
          amount,
          currency: body.currency,
          blockchainNetwork: network,
          feeType,
          feePercentage,
          fee,
          total: sumDecimals([amount, fee]),
          billingConfig: billing as Record<string, unknown>,
        },
        ttlSeconds,
      );
      return toQuote(row);
    },

    /**
     * Uses a quote for a transaction being created (inside its database transaction): the quote
     * must be the platform's, unexpired, unused, and for the same amount and currency.
     */
    async use(tx: Queryable, platformId: string, quoteId: string, t: { amount: string; currency: Currency; transactionId: string }) {
      const quote = await repository.lock(tx, quoteId, platformId);
      if (!quote) throw notFound('Quote', { field: 'quoteId' });
      if (quote.usedAt) throw new AppError('CONFLICT', 'Quote was already used by another transaction', { field: 'quoteId' });
      if (quote.expired) throw validationError([{ field: 'quoteId', reason: `expired at ${quote.expiresAt}; request a new quote` }]);
      if (compareDecimal(quote.amount, t.amount) !== 0 || quote.currency !== t.currency) {
        throw validationError([
          { field: 'quoteId', reason: `was quoted for ${quote.amount} ${quote.currency}, not ${t.amount} ${t.currency}` },
        ]);
      }
      await repository.markUsed(tx, quote.id, t.transactionId);
      return quote;
    },
  };
}
export type QuotesService = ReturnType<typeof createQuotesService>;
