import type { CheckoutSessionStatus, CheckoutWalletSettings } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { checkoutSessions } from './tables.js';

/** A session as stored (the table's row type), and whether `expiresAt` had passed by the database's clock when read. */
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect & { pastExpiry: boolean };

export type NewCheckoutSession = Omit<
  CheckoutSessionRow,
  'status' | 'fromAddress' | 'transactionId' | 'completedAt' | 'expiredAt' | 'createdAt' | 'updatedAt' | 'expiresAt' | 'pastExpiry'
>;

/** A statement's rows: the table's columns and the `past_expiry` it computes. */
type SessionDbRow = Record<string, unknown> & { past_expiry: boolean };

const toSession = rowMapper(checkoutSessions);
const toRow = (r: SessionDbRow): CheckoutSessionRow => ({ ...toSession(r), pastExpiry: r.past_expiry });

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export interface CheckoutSessionFilters {
  page: number;
  limit: number;
  status?: CheckoutSessionStatus;
  customerId?: string;
  transactionId?: string;
}

/** All SQL of checkout sessions (postgres.js templates, as the rest of payments). */
export function createCheckoutRepository(sql: Queryable) {
  return {
    /**
     * Inserts the session, expiring `expiresInSeconds` from the database's clock; null when the
     * platform's idempotency key is already taken (the caller answers that session).
     */
    async insert(s: NewCheckoutSession, expiresInSeconds: number): Promise<CheckoutSessionRow | null> {
      const rows = await sql<SessionDbRow[]>`
        insert into checkout_sessions (id, platform_id, workspace_id, status, amount, currency, blockchain_network, to_address,
          template_id, template, customer_id, metadata, success_url, cancel_url, expires_at, idempotency_key, request_fingerprint)
        values (${s.id}, ${s.platformId}, ${s.workspaceId}, 'open', ${s.amount}::numeric, ${s.currency}, ${s.blockchainNetwork},
          ${s.toAddress}, ${s.templateId}, ${json(s.template)}::text::jsonb, ${s.customerId}, ${json(s.metadata)}::text::jsonb,
          ${s.successUrl}, ${s.cancelUrl}, now() + make_interval(secs => ${expiresInSeconds}), ${s.idempotencyKey},
          ${s.requestFingerprint})
        on conflict (platform_id, idempotency_key) where idempotency_key is not null do nothing
        returning *, false as past_expiry`;
      return rows[0] ? toRow(rows[0]) : null;
    },

    async findByIdempotencyKey(platformId: string, key: string): Promise<CheckoutSessionRow | null> {
      const rows = await sql<SessionDbRow[]>`
        select *, expires_at <= clock_timestamp() as past_expiry from checkout_sessions
        where platform_id = ${platformId} and idempotency_key = ${key}`;
      return rows[0] ? toRow(rows[0]) : null;
    },

    /** The session; only the platform's when `platformId` is given (the hosted page's reads give none). */
    async get(q: Queryable, id: string, platformId?: string): Promise<CheckoutSessionRow | null> {
      const rows = await q<SessionDbRow[]>`
        select *, expires_at <= clock_timestamp() as past_expiry from checkout_sessions
        where id = ${id} ${platformId ? q`and platform_id = ${platformId}` : q``}`;
      return rows[0] ? toRow(rows[0]) : null;
    },

    /** The session, locked until the caller's transaction ends: its moves serialize. */
    async lock(tx: Queryable, id: string, platformId?: string): Promise<CheckoutSessionRow | null> {
      const rows = await tx<SessionDbRow[]>`
        select *, expires_at <= clock_timestamp() as past_expiry from checkout_sessions
        where id = ${id} ${platformId ? tx`and platform_id = ${platformId}` : tx``} for update`;
      return rows[0] ? toRow(rows[0]) : null;
    },

    /** The session of a transaction, locked (the completion hook; through the partial unique index). */
    async lockByTransaction(tx: Queryable, transactionId: string): Promise<CheckoutSessionRow | null> {
      const rows = await tx<SessionDbRow[]>`
        select *, expires_at <= clock_timestamp() as past_expiry from checkout_sessions
        where transaction_id = ${transactionId} for update`;
      return rows[0] ? toRow(rows[0]) : null;
    },

    async list(platformId: string, f: CheckoutSessionFilters): Promise<{ rows: CheckoutSessionRow[]; total: number }> {
      const where = sql`
        platform_id = ${platformId}
        ${f.status ? sql`and status = ${f.status}` : sql``}
        ${f.customerId ? sql`and customer_id = ${f.customerId}` : sql``}
        ${f.transactionId ? sql`and transaction_id = ${f.transactionId}` : sql``}`;
      const [rows, counted] = await Promise.all([
        sql<SessionDbRow[]>`select *, expires_at <= clock_timestamp() as past_expiry from checkout_sessions where ${where}
          order by created_at desc, id desc limit ${f.limit} offset ${(f.page - 1) * f.limit}`,
        sql<{ n: string }[]>`select count(*)::text as n from checkout_sessions where ${where}`,
      ]);
      return { rows: rows.map(toRow), total: Number(counted[0]?.n ?? 0) };
    },

    /** Writes a move the state machine allowed; the timestamps of `complete` and `expired` and the payer's fields with it. */
    async applyMove(
      tx: Queryable,
      id: string,
      to: CheckoutSessionStatus,
      patch: { fromAddress?: string | null; transactionId?: string | null } = {},
    ): Promise<CheckoutSessionRow> {
      const rows = await tx<SessionDbRow[]>`
        update checkout_sessions set status = ${to},
          from_address = ${'fromAddress' in patch ? (patch.fromAddress ?? null) : tx`from_address`},
          transaction_id = ${'transactionId' in patch ? (patch.transactionId ?? null) : tx`transaction_id`},
          completed_at = ${to === 'complete' ? tx`clock_timestamp()` : tx`completed_at`},
          expired_at = ${to === 'expired' ? tx`clock_timestamp()` : tx`expired_at`},
          updated_at = clock_timestamp()
        where id = ${id}
        returning *, expires_at <= clock_timestamp() as past_expiry`;
      return toRow(rows[0]!);
    },

    /** Sets the transaction of a processing session (the payer's, created after the session moved). */
    async setTransaction(tx: Queryable, id: string, transactionId: string): Promise<CheckoutSessionRow> {
      const rows = await tx<SessionDbRow[]>`
        update checkout_sessions set transaction_id = ${transactionId}, updated_at = clock_timestamp() where id = ${id}
        returning *, expires_at <= clock_timestamp() as past_expiry`;
      return toRow(rows[0]!);
    },

    /**
     * Open sessions past their expiry, locked for the caller's transaction (skipping those another
     * instance or a request holds), oldest expiry first.
     */
    async claimExpired(tx: Queryable, limit: number): Promise<CheckoutSessionRow[]> {
      const rows = await tx<SessionDbRow[]>`
        select *, true as past_expiry from checkout_sessions
        where status = 'open' and expires_at <= clock_timestamp()
        order by expires_at limit ${limit} for update skip locked`;
      return rows.map(toRow);
    },

    /**
     * Stores a workspace's wallet settings unless a newer `asOf` is already stored; true when stored.
     * One statement, so two messages racing leave the newer.
     */
    async putWalletSettings(workspaceId: string, settings: CheckoutWalletSettings | null, asOf: string): Promise<boolean> {
      const rows = await sql<{ workspace_id: string }[]>`
        insert into checkout_wallet_settings (workspace_id, settings, as_of)
        values (${workspaceId}, ${json(settings)}::text::jsonb, ${asOf})
        on conflict (workspace_id) do update set settings = excluded.settings, as_of = excluded.as_of, updated_at = clock_timestamp()
          where checkout_wallet_settings.as_of <= excluded.as_of
        returning workspace_id`;
      return rows.length > 0;
    },

    /** The workspace's wallet settings; null when none were sent or the workspace has no enabled config. */
    async walletSettings(workspaceId: string): Promise<CheckoutWalletSettings | null> {
      const rows = await sql<{ settings: CheckoutWalletSettings | null }[]>`
        select settings from checkout_wallet_settings where workspace_id = ${workspaceId}`;
      return rows[0]?.settings ?? null;
    },

    /**
     * Processing sessions past their expiry (their transaction never became escrowed, or they would
     * be complete), locked for the caller's transaction, skipping those held elsewhere; the least
     * recently looked at first, so that ones still in flight do not starve the rest.
     */
    async claimUnfundedPastExpiry(tx: Queryable, limit: number): Promise<CheckoutSessionRow[]> {
      const rows = await tx<SessionDbRow[]>`
        select *, true as past_expiry from checkout_sessions
        where status = 'processing' and expires_at <= clock_timestamp()
        order by updated_at limit ${limit} for update skip locked`;
      return rows.map(toRow);
    },

    /** Marks a session looked at (updated_at), so the next pass takes others first. */
    async touch(tx: Queryable, id: string): Promise<void> {
      await tx`update checkout_sessions set updated_at = clock_timestamp() where id = ${id}`;
    },

    /**
     * Milliseconds until the next open session expires, or a processing one reaches its expiry (one
     * past it is looked at again every interval, not at once); null when none.
     */
    async msUntilNextExpiry(): Promise<number | null> {
      const rows = await sql<{ ms: string | null }[]>`
        select (extract(epoch from (min(expires_at) - clock_timestamp())) * 1000)::bigint::text as ms
        from checkout_sessions
        where status = 'open' or (status = 'processing' and expires_at > clock_timestamp())`;
      const ms = rows[0]?.ms;
      return ms === null || ms === undefined ? null : Math.max(0, Number(ms));
    },
  };
}
export type CheckoutRepository = ReturnType<typeof createCheckoutRepository>;
