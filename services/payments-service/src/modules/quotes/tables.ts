import { sql } from 'drizzle-orm';
import { index, jsonb, numeric, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platforms } from '../platforms/tables.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

/**
 * Fee quotes (POST /transactions/quote). A quote is valid until `expires_at` and is used by at most
 * one transaction: creation sets `used_at` and `transaction_id` in its own database transaction.
 */
export const quotes = paymentsSchema.table(
  'quotes',
  {
    id: uuid('id').primaryKey(),
    platformId: uuid('platform_id')
      .notNull()
      .references(() => platforms.id),
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    blockchainNetwork: text('blockchain_network').notNull(),
    feeType: text('fee_type').notNull(),
    feePercentage: numeric('fee_percentage').notNull(),
    fee: numeric('fee').notNull(),
    total: numeric('total').notNull(),
    /** The billing configuration the fee was computed from. */
    billingConfig: jsonb('billing_config').$type<Record<string, unknown>>(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    transactionId: uuid('transaction_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('quotes_platform_created_idx').on(t.platformId, t.createdAt),
    /** The retention sweeper's scan of unused quotes (modules/retention). */
    index('quotes_unused_expires_idx').on(t.expiresAt).where(sql`used_at is null`),
  ],
);
