import type { Quote } from '@holdfast/contracts';
import { createdAtString, timestamptzString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { index, jsonb, numeric, text, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';

/**
 * Fee quotes (POST /transactions/quote). A quote is valid until `expires_at` and is used by at most
 * one transaction: creation sets `used_at` and `transaction_id` in its own database transaction.
 */
export const quotes = paymentsSchema.table(
  'quotes',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    amount: numeric('amount').notNull(),
    currency: text('currency').$type<Quote['currency']>().notNull(),
    blockchainNetwork: text('blockchain_network').$type<Quote['blockchainNetwork']>().notNull(),
    feeType: text('fee_type').$type<Quote['feeType']>().notNull(),
    feePercentage: numeric('fee_percentage').notNull(),
    fee: numeric('fee').notNull(),
    total: numeric('total').notNull(),
    /** The billing configuration the fee was computed from. */
    billingConfig: jsonb('billing_config').$type<Record<string, unknown>>(),
    expiresAt: timestamptzString('expires_at').notNull(),
    usedAt: timestamptzString('used_at'),
    transactionId: uuid('transaction_id'),
    createdAt: createdAtString(),
  },
  (t) => [
    index('quotes_platform_created_idx').on(t.platformId, t.createdAt),
    /** The retention sweeper's scan of unused quotes (modules/retention). */
    index('quotes_unused_expires_idx').on(t.expiresAt).where(sql`used_at is null`),
  ],
);
