import { createdAtString, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, numeric, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';
import { transactionIdColumn } from '../transactions/tables.js';

/** What was relayed: an escrow's creation (`authorization`: EIP-3009, `permit`: EIP-2612), or a `transfer` straight to the payee (EIP-3009, x402 `exact`). */
export const RELAY_KINDS = ['authorization', 'permit', 'transfer'] as const;
export type RelayKind = (typeof RELAY_KINDS)[number];
/** `submitted` (signed, stored, sent; no receipt yet), `mined`, `reverted` (receipt of status 0), `failed` (its account nonce went to another transaction). */
export const RELAY_STATUSES = ['submitted', 'mined', 'reverted', 'failed'] as const;
export type RelayStatus = (typeof RELAY_STATUSES)[number];
/** A transaction's bytes or hash, `0x`-prefixed hex (viem's `Hex`). */
type Hex = `0x${string}`;

/**
 * One relayed payment (docs/checkout.md, docs/x402.md): an escrow funding or a transfer: the payer's signed request, the relayer's signed
 * transaction for it (raw bytes and hash stored before they are broadcast, so a crash between the
 * commit and the receipt re-sends the same bytes, never a second transaction), its replacements
 * (same account nonce, higher fees) and what it cost. A transaction has at most one live relay.
 */
export const relayedLocks = paymentsSchema.table(
  'relayed_locks',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    transactionId: transactionIdColumn(),
    network: text('network').notNull(),
    kind: text('kind').$type<RelayKind>().notNull(),
    /** The body the payer's signatures came in, as received (the same body again answers this relay). */
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    /** `authorizer:nonce`: EIP-3009, the authorization's nonce (authorizationNonce); permit, the escrow's on-chain id, which is used once. */
    derivedNonce: text('derived_nonce').notNull(),
    relayer: text('relayer').notNull(),
    accountNonce: bigint('account_nonce', { mode: 'number' }).notNull(),
    gasLimit: numeric('gas_limit', { mode: 'bigint' }).notNull(),
    /** The current attempt: the signed bytes, their hash and fees (wei). */
    rawTx: text('raw_tx').$type<Hex>().notNull(),
    txHash: text('tx_hash').$type<Hex>().notNull(),
    maxFeePerGas: numeric('max_fee_per_gas', { mode: 'bigint' }).notNull(),
    maxPriorityFeePerGas: numeric('max_priority_fee_per_gas', { mode: 'bigint' }).notNull(),
    /** Hashes of the attempts it replaced (same nonce): any of them may be the one mined. */
    earlierHashes: jsonb('earlier_hashes').$type<Hex[]>().notNull().default(sql`'[]'::jsonb`),
    status: text('status').$type<RelayStatus>().notNull().default('submitted'),
    /** The hash that was mined (current or earlier). */
    minedHash: text('mined_hash').$type<Hex>(),
    gasUsed: numeric('gas_used', { mode: 'bigint' }),
    /** gasUsed x effectiveGasPrice of the mined attempt, in wei. */
    feePaidWei: numeric('fee_paid_wei', { mode: 'bigint' }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(1),
    /** When the current attempt was sent (a replacement is due RELAYER_STUCK_AFTER later). */
    sentAt: timestamptzString('sent_at').notNull().defaultNow(),
    /** When the mined escrow moved the transaction (settlement's submit-escrow-hash path), or it was found not to. */
    appliedAt: timestamptzString('applied_at'),
    nextCheckAt: timestamptzString('next_check_at').notNull().defaultNow(),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    uniqueIndex('relayed_locks_live_transaction_unique').on(t.transactionId).where(sql`status in ('submitted', 'mined')`),
    uniqueIndex('relayed_locks_live_account_nonce_unique')
      .on(t.network, t.relayer, t.accountNonce)
      .where(sql`status in ('submitted', 'mined')`),
    index('relayed_locks_due_idx').on(t.nextCheckAt).where(sql`status = 'submitted' or (status = 'mined' and applied_at is null)`),
    index('relayed_locks_platform_day_idx').on(t.platformId, t.createdAt),
    index('relayed_locks_derived_nonce_idx').on(t.network, t.derivedNonce),
  ],
);

/** The relayer's next account nonce per network, locked FOR UPDATE to hand nonces out one by one. */
export const relayerAccounts = paymentsSchema.table(
  'relayer_accounts',
  {
    network: text('network').notNull(),
    address: text('address').notNull(),
    nextNonce: bigint('next_nonce', { mode: 'number' }).notNull(),
    updatedAt: updatedAtString(),
  },
  (t) => [primaryKey({ columns: [t.network, t.address] })],
);
