import { deleteInBatches, type Sql, withTryAdvisoryLock } from '@holdfast/db';
import { LOGIN_FAILURE_WINDOW_MS, LOGIN_LOCK_MS } from '../sessions/repository.js';

/** Rows deleted per statement, so that no statement holds locks for long. */
export const RETENTION_BATCH = 1000;

/** How long workspace keeps its short-lived rows after they stopped mattering (docs/operations.md, "Retention"). */
export interface WorkspaceRetentionHorizons {
  /**
   * Refresh tokens (users and customers), rotated or not: kept this long after `expires_at`. A
   * rotated token presented again revokes its session (reuse detection) for as long as it is kept,
   * so this is at least as long as the token could have been used. A session goes with its last token.
   */
  refreshTokenSeconds: number;
  /** SIWE wallet-link nonces (used or not): kept this long after `expires_at`. */
  nonceSeconds: number;
}

export interface WorkspaceRetentionResult {
  refreshTokens: number;
  sessions: number;
  customerRefreshTokens: number;
  customerSessions: number;
  walletLinkNonces: number;
  loginThrottles: number;
}

export type WorkspaceRetentionRepository = ReturnType<typeof createWorkspaceRetentionRepository>;

/** A login throttle row matters for its window and its lock; after a day it is history. */
const THROTTLE_KEEP_SECONDS = Math.max(24 * 3600, (LOGIN_FAILURE_WINDOW_MS + LOGIN_LOCK_MS) / 1000);

export function createWorkspaceRetentionRepository(sql: Sql, options: { batch?: number } = {}) {
  const batch = options.batch ?? RETENTION_BATCH;
  return {
    /** One pass by one instance at a time (an advisory lock); undefined when another instance holds it. */
    sweep: (h: WorkspaceRetentionHorizons): Promise<WorkspaceRetentionResult | undefined> =>
      withTryAdvisoryLock(sql, 'workspace:retention', async (conn) => {
        const run = (query: () => Promise<{ length: number }>) => deleteInBatches(async () => (await query()).length, batch);
        const tokenCutoff = () => conn`now() - make_interval(secs => ${h.refreshTokenSeconds})`;
        const refreshTokens = await run(
          () => conn`
              delete from refresh_tokens where id in (
                select id from refresh_tokens where expires_at < ${tokenCutoff()} limit ${batch})
              returning 1`,
        );
        // A session without any token left: its newest token expired more than the horizon ago.
        // `created_at` keeps a session being created (its first token not yet written) out of reach.
        const sessions = await run(
          () => conn`
              delete from sessions where id in (
                select s.id from sessions s
                where s.created_at < ${tokenCutoff()}
                  and not exists (select 1 from refresh_tokens t where t.session_id = s.id)
                limit ${batch})
              returning 1`,
        );
        const customerRefreshTokens = await run(
          () => conn`
              delete from customer_refresh_tokens where id in (
                select id from customer_refresh_tokens where expires_at < ${tokenCutoff()} limit ${batch})
              returning 1`,
        );
        const customerSessions = await run(
          () => conn`
              delete from customer_sessions where id in (
                select s.id from customer_sessions s
                where s.created_at < ${tokenCutoff()}
                  and not exists (select 1 from customer_refresh_tokens t where t.session_id = s.id)
                limit ${batch})
              returning 1`,
        );
        const walletLinkNonces = await run(
          () => conn`
              delete from wallet_link_nonces where nonce_hash in (
                select nonce_hash from wallet_link_nonces
                where expires_at < now() - make_interval(secs => ${h.nonceSeconds}) limit ${batch})
              returning 1`,
        );
        const loginThrottles = await run(
          () => conn`
              delete from login_throttles where email_hash in (
                select email_hash from login_throttles
                where window_start < now() - make_interval(secs => ${THROTTLE_KEEP_SECONDS})
                  and (locked_until is null or locked_until < now() - make_interval(secs => ${THROTTLE_KEEP_SECONDS}))
                limit ${batch})
              returning 1`,
        );
        return { refreshTokens, sessions, customerRefreshTokens, customerSessions, walletLinkNonces, loginThrottles };
      }),
  };
}
