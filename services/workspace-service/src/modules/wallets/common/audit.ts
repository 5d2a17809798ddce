import { WALLET_AUDIT } from '@holdfast/contracts';
import type { PgTransaction } from 'drizzle-orm/pg-core';
import type { Executor } from '../../../db/store.js';
import type { Actor, Caller } from '../../access/index.js';
import { isSuperAdmin } from '../../access/index.js';
import type { AuditService } from '../../audit/index.js';
import { createAuditRepository } from '../../audit/index.js';

/** The marker that stands for a secret in audit changes (and in logs: the logger's censor). */
export const REDACTED = '[redacted]';

/**
 * The workspaces a caller may act on: every one (super admins, platform admins) or a list (the
 * workspaces the user belongs to). The routes derive it from the session.
 */
export type WorkspaceAccess = 'all' | readonly string[];

export function canAccess(access: WorkspaceAccess, workspaceId: string): boolean {
  return access === 'all' || access.includes(workspaceId);
}

/** Who asked for a change, for the audit trail. The routes fill it from the request (`actorContextOf`). */
export interface ActorContext {
  actorId?: string | null | undefined;
  ipAddress?: string | undefined;
  userAgent?: string | undefined;
  /** The request's caller: the audit entry is written for it (and marks the request audited). */
  caller?: Caller | undefined;
}

export function actorContextOf(caller: Caller): ActorContext {
  return {
    actorId: caller.actor?.id ?? null,
    ...(caller.ipAddress ? { ipAddress: caller.ipAddress } : {}),
    ...(caller.userAgent ? { userAgent: caller.userAgent } : {}),
    caller,
  };
}

/** The workspaces an actor may act on: all for a SUPER_ADMIN, its own for the others. */
export function workspaceAccessOf(actor: Actor): WorkspaceAccess {
  if (isSuperAdmin(actor)) return 'all';
  return actor.workspaceId ? [actor.workspaceId] : [];
}

/** The audit actions of the wallet features: the catalogue's (@holdfast/contracts). */
export { WALLET_AUDIT };
export type WalletAuditAction = (typeof WALLET_AUDIT)[keyof typeof WALLET_AUDIT];

export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** One audit entry of a wallet feature: `changes` never holds a secret, only REDACTED. */
export interface WalletAuditEntry {
  action: WalletAuditAction['action'];
  resourceType: WalletAuditAction['resourceType'];
  resourceId: string;
  workspaceId: string | null;
  changes: Record<string, FieldChange>;
  actor: ActorContext;
  details?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Where wallet features record audit entries: the audit log of workspace tenancy, inside the
 * transaction of the change (so an entry exists exactly when the change committed).
 */
// biome-ignore lint/suspicious/noExplicitAny: a drizzle transaction of the service's schema
export type AuditSink = (tx: PgTransaction<any, any, any>, entry: WalletAuditEntry) => Promise<void>;

/** The caller of acts without a request (the remote task runner's auto-created customer wallets). */
const SYSTEM_CALLER: Caller = {
  actor: null,
  ipAddress: null,
  userAgent: null,
  requestId: 'system',
  method: 'SYSTEM',
  path: 'wallets',
  audited: false,
};

/**
 * The audit sink of the wallet features: the workspace audit trail, written in the change's
 * transaction for the request's caller (which marks the request audited: one entry per act).
 */
export function walletAuditSink(audit: AuditService): AuditSink {
  return async (tx, entry) => {
    await audit.record(
      { audit: createAuditRepository(tx as unknown as Executor) },
      entry.actor.caller ?? SYSTEM_CALLER,
      { action: entry.action, resourceType: entry.resourceType },
      {
        resourceId: entry.resourceId,
        workspaceId: entry.workspaceId,
        changes: entry.changes,
        ...(entry.details ? { details: entry.details } : {}),
        ...(entry.metadata ? { metadata: entry.metadata } : {}),
      },
    );
  };
}

/** Field-by-field changes between two versions of a record; `secret` fields appear only as REDACTED. */
export function diffChanges<T extends Record<string, unknown>>(
  before: Partial<T> | null,
  after: Partial<T> | null,
  fields: readonly (keyof T & string)[],
  secretsTouched: readonly string[] = [],
): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  for (const field of fields) {
    const from = before?.[field] ?? null;
    const to = after?.[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  for (const secret of secretsTouched) changes[secret] = { from: before ? REDACTED : null, to: after ? REDACTED : null };
  return changes;
}
