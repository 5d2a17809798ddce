import type { CheckoutSessionStatus, Currency, Network } from '@holdfast/contracts';
import { createdAtString, metadataColumn, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { index, jsonb, numeric, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';
import { transactions } from '../transactions/tables.js';

/**
 * Checkout sessions (docs/checkout.md): a payment the platform asked for, waiting for a payer on the
 * hosted page. `transaction_id` is set once the payer named its address (the session's one
 * transaction); its status follows the state machine of state-machine.ts.
 */
export const checkoutSessions = paymentsSchema.table(
  'checkout_sessions',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    workspaceId: uuid('workspace_id'),
    status: text('status').$type<CheckoutSessionStatus>().notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').$type<Currency>().notNull(),
    blockchainNetwork: text('blockchain_network').$type<Network>().notNull(),
    toAddress: text('to_address').notNull(),
    fromAddress: text('from_address'),
    templateId: uuid('template_id'),
    /** The embedded hold terms (`template` of the create body), passed to the transaction as sent. */
    template: jsonb('template').$type<Record<string, unknown>>(),
    customerId: text('customer_id'),
    metadata: metadataColumn(),
    successUrl: text('success_url').notNull(),
    cancelUrl: text('cancel_url').notNull(),
    expiresAt: timestamptzString('expires_at').notNull(),
    /** Null until the payer named its address; never deleted while the session refers to it. */
    transactionId: uuid('transaction_id').references(() => transactions.id),
    idempotencyKey: text('idempotency_key'),
    /** SHA-256 of the canonical request: a reused key with other parameters is refused. */
    requestFingerprint: text('request_fingerprint').notNull(),
    completedAt: timestamptzString('completed_at'),
    expiredAt: timestamptzString('expired_at'),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    index('checkout_sessions_platform_created_idx').on(t.platformId, t.createdAt),
    uniqueIndex('checkout_sessions_platform_key_idx').on(t.platformId, t.idempotencyKey).where(sql`idempotency_key is not null`),
    /** The completion hook's lookup, once per move of a transaction. */
    uniqueIndex('checkout_sessions_transaction_idx').on(t.transactionId).where(sql`transaction_id is not null`),
    /** The expiry worker's scans: open sessions, and processing ones whose transaction was never funded. */
    index('checkout_sessions_live_expires_idx').on(t.expiresAt).where(sql`status in ('open', 'processing')`),
  ],
);

/**
 * A workspace's checkout wallet settings (name, logo, WalletConnect project id, allowed networks
 * and templates), as workspace-service last sent them (cmd.payments.checkout-wallet-settings.set).
 * Keyed by workspace: a session reads the row of its own platform's workspace, never another's.
 * `settings` null: the workspace has no enabled external wallet config (the defaults apply).
 * `as_of` is when workspace-service read its configs; an older message never replaces a newer one.
 */
export const checkoutWalletSettings = paymentsSchema.table('checkout_wallet_settings', {
  workspaceId: uuid('workspace_id').primaryKey(),
  settings: jsonb('settings').$type<Record<string, unknown>>(),
  asOf: timestamptzString('as_of').notNull(),
  updatedAt: updatedAtString(),
});
