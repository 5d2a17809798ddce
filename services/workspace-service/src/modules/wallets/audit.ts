import type { PgTransaction } from 'drizzle-orm/pg-core';

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

/** Who asked for a change, for the audit trail. The routes fill it from the session. */
export interface ActorContext {
  actorId?: string | null | undefined;
  ipAddress?: string | undefined;
  userAgent?: string | undefined;
}

export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** One audit entry of a wallet feature: `changes` never holds a secret, only REDACTED. */
export interface WalletAuditEntry {
  action: string;
  resourceType: 'wallet_provider_config' | 'external_wallet_config' | 'contract_deployment' | 'customer_wallet' | 'platform_wallet';
  resourceId: string;
  workspaceId: string | null;
  changes: Record<string, FieldChange>;
  actor: ActorContext;
}

/**
 * Where wallet features record audit entries: the audit log of workspace tenancy, inside the
 * transaction of the change (so an entry exists exactly when the change committed).
 */
// biome-ignore lint/suspicious/noExplicitAny: a drizzle transaction of the service's schema
export type AuditSink = (tx: PgTransaction<any, any, any>, entry: WalletAuditEntry) => Promise<void>;

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
