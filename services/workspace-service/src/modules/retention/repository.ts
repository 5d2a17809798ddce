import { type Sql, sweepInBatches } from '@holdfast/db';
import { LOGIN_FAILURE_WINDOW_MS, LOGIN_LOCK_MS } from '../sessions/index.js';

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
      sweepInBatches(sql, 'workspace:retention', batch, async (conn, run) => {
        const tokenCutoff = () => conn`now() - make_interval(secs => ${h.refreshTokenSeconds})`;
        // The refresh tokens of one kind of session (users', customers': the same model) past the
        // horizon, then its sessions without any token left: their newest token expired more than
        // the horizon ago. `created_at` keeps a session being created (its first token not yet
        // written) out of reach.
        const sweepSessions = async (tokensTable: string, sessionsTable: string) => {
          const tokens = await run(
            () => conn`
              delete from ${conn(tokensTable)} where id in (
                select id from ${conn(tokensTable)} where expires_at < ${tokenCutoff()} limit ${batch})
              returning 1`,
          );
          const sessions = await run(
            () => conn`
              delete from ${conn(sessionsTable)} where id in (
                select s.id from ${conn(sessionsTable)} s
                where s.created_at < ${tokenCutoff()}
                  and not exists (select 1 from ${conn(tokensTable)} t where t.session_id = s.id)
                limit ${batch})
              returning 1`,
          );
          return { tokens, sessions };
        };
        const users = await sweepSessions('refresh_tokens', 'sessions');
        const customers = await sweepSessions('customer_refresh_tokens', 'customer_sessions');
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
        return {
          refreshTokens: users.tokens,
          sessions: users.sessions,
          customerRefreshTokens: customers.tokens,
          customerSessions: customers.sessions,
          walletLinkNonces,
          loginThrottles,
        };
      }),
  };
}
