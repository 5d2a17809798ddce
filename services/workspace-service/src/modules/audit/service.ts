import {
  type AuditExportQuery,
  type AuditLogEntry,
  type AuditLogQuery,
  type AuditStats,
  type AuditStatsQuery,
  forbidden,
  notFound,
  paginationMeta,
  uuidv7,
} from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import type { Store } from '../../db/store.js';
import { type Actor, adminReadScope, assertWorkspaceAdmin, type Caller, type ReadScope } from '../access/index.js';
import type { AuditAction } from './actions.js';
import { toCsv } from './csv.js';
import { redactSecrets } from './redact.js';
import type { AuditFilter, AuditRepository, AuditRow } from './repository.js';

/** What a service says about a successful act; the caller and request fill in the rest. */
export interface AuditFacts {
  resourceId?: string | null;
  /** The workspace the act concerns; the actor's workspace when omitted. */
  workspaceId?: string | null;
  details?: string;
  changes?: Record<string, unknown> | null;
  /** Who acted, when the request had no bearer (sign-up, login). */
  userId?: string | null;
  metadata?: Record<string, unknown>;
}

export function toAuditEntry(row: AuditRow): AuditLogEntry {
  return {
    id: row.id,
    userId: row.userId,
    workspaceId: row.workspaceId,
    action: row.action,
    resourceType: row.resourceType,
    resourceId: row.resourceId,
    details: row.details,
    changes: row.changes,
    success: row.success,
    errorMessage: row.errorMessage,
    ipAddress: row.ipAddress,
    userAgent: row.userAgent,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
  };
}

function baseRow(caller: Caller, what: AuditAction, facts: AuditFacts, success: boolean, errorMessage: string | null) {
  return {
    id: uuidv7(),
    userId: facts.userId !== undefined ? facts.userId : (caller.actor?.id ?? null),
    workspaceId: facts.workspaceId !== undefined ? facts.workspaceId : (caller.actor?.workspaceId ?? caller.customer?.workspaceId ?? null),
    action: what.action,
    resourceType: what.resourceType,
    resourceId: facts.resourceId ?? null,
    details: facts.details ?? null,
    changes: facts.changes ? (redactSecrets(facts.changes) as Record<string, unknown>) : null,
    success,
    errorMessage,
    ipAddress: caller.ipAddress,
    userAgent: caller.userAgent,
    metadata: {
      requestId: caller.requestId,
      method: caller.method,
      path: caller.path,
      ...(caller.actor ? { actorEmail: caller.actor.email, actorRole: caller.actor.role } : {}),
      ...(caller.customer ? { customerId: caller.customer.id, customerEmail: caller.customer.email } : {}),
      ...facts.metadata,
    },
  };
}

const EXPORT_COLUMNS = [
  'id',
  'createdAt',
  'userId',
  'workspaceId',
  'action',
  'resourceType',
  'resourceId',
  'success',
  'errorMessage',
  'details',
  'changes',
  'ipAddress',
  'userAgent',
  'metadata',
] as const;

/**
 * The audit trail: written by every mutating operation (inside its transaction when it succeeds,
 * by the HTTP layer when it is refused), read by administrators within their scope.
 */
export function createAuditService(deps: {
  store: Store<{ audit: AuditRepository }>;
  /** Whether a workspace exists (a SUPER_ADMIN asking for an unknown one gets 404). */
  workspaceExists: (id: string) => Promise<boolean>;
  /** A user's role and workspace, to scope an ADMIN's reads. */
  userOf: (id: string) => Promise<{ id: string; role: string; workspaceId: string | null } | undefined>;
  logger: Logger;
}) {
  const { store } = deps;

  /** Narrows the filters to what the actor may read; refuses filters outside its scope. */
  function scoped(scope: ReadScope, query: AuditFilter): AuditFilter {
    if (scope.kind === 'all') return query;
    if (scope.kind === 'workspace') {
      if (query.workspaceId && query.workspaceId !== scope.workspaceId) throw forbidden('Not a member of this workspace');
      return { ...query, workspaceId: scope.workspaceId };
    }
    if (query.userId && query.userId !== scope.userId) throw forbidden('You may only read your own audit entries');
    if (query.workspaceId) throw forbidden('Not a member of this workspace');
    return { ...query, userId: scope.userId };
  }

  function filterOf(query: Partial<AuditStatsQuery>): AuditFilter {
    const { workspaceId, userId, action, resourceType, resourceId, success, from, to, search } = query;
    return { workspaceId, userId, action, resourceType, resourceId, success, from, to, search };
  }

  async function page(filter: AuditFilter, query: { page: number; limit: number }) {
    const { rows, total } = await store.repos.audit.list(filter, query.page, query.limit);
    return { entries: rows.map(toAuditEntry), pagination: paginationMeta(query.page, query.limit, total) };
  }

  return {
    /** Records a successful act inside the transaction that performs it. */
    record: async (repos: { audit: AuditRepository }, caller: Caller, what: AuditAction, facts: AuditFacts): Promise<void> => {
      await repos.audit.insert(baseRow(caller, what, facts, true, null));
      caller.audited = true;
    },

    /** Records a successful act outside any transaction (the HTTP layer's safety net). */
    recordOutside: async (caller: Caller, what: AuditAction, facts: AuditFacts): Promise<void> => {
      await store.repos.audit.insert(baseRow(caller, what, facts, true, null));
      caller.audited = true;
    },

    /**
     * Records an act another process (payments, the dispatcher) carried out, once it answered. Never
     * throws: the act happened and its answer (a secret shown once, say) must reach the caller; a
     * failed write is logged and the HTTP layer's safety net writes the entry again.
     */
    recordRemote: async (caller: Caller, what: AuditAction, facts: AuditFacts): Promise<void> => {
      try {
        await store.repos.audit.insert(baseRow(caller, what, facts, true, null));
        caller.audited = true;
      } catch (error) {
        deps.logger.error(
          { err: error, action: what.action, requestId: caller.requestId },
          'could not write the audit entry of a forwarded act',
        );
      }
    },

    /**
     * Records a refused or failed act. Filed under the actor's own workspace (the target is in
     * `resourceId`), so an attempt on another tenant never shows in that tenant's trail.
     */
    recordFailure: async (
      caller: Caller,
      what: AuditAction,
      facts: AuditFacts & { errorMessage: string; statusCode: number; errorCode?: string },
    ): Promise<void> => {
      const { errorMessage, statusCode, errorCode, ...rest } = facts;
      const row = baseRow(caller, what, { ...rest, metadata: { ...rest.metadata, statusCode, errorCode } }, false, errorMessage);
      await store.repos.audit.insert(row);
      caller.audited = true;
    },

    list: async (actor: Actor, query: AuditLogQuery) => page(scoped(adminReadScope(actor), filterOf(query)), query),

    listForWorkspace: async (actor: Actor, workspaceId: string, query: Omit<AuditLogQuery, 'workspaceId'>) => {
      assertWorkspaceAdmin(actor, workspaceId);
      if (!(await deps.workspaceExists(workspaceId))) throw notFound('Workspace');
      return page({ ...filterOf(query), workspaceId }, query);
    },

    /**
     * Entries a user made. A SUPER_ADMIN reads any user's (deleted users' too); an ADMIN only those of
     * a user of its workspace, filed under its workspace (another tenant's user answers 404).
     */
    listForUser: async (actor: Actor, userId: string, query: Omit<AuditLogQuery, 'userId'>) => {
      const scope = adminReadScope(actor);
      const filter: AuditFilter = { ...filterOf(query), userId };
      if (scope.kind !== 'all') {
        const user = await deps.userOf(userId);
        const visible =
          user &&
          user.role !== 'SUPER_ADMIN' &&
          ((scope.kind === 'workspace' && user.workspaceId === scope.workspaceId) || (scope.kind === 'self' && user.id === scope.userId));
        if (!visible) throw notFound('User');
        if (scope.kind === 'workspace') filter.workspaceId = scope.workspaceId;
      }
      return page(filter, query);
    },

    get: async (actor: Actor, id: string): Promise<AuditLogEntry> => {
      const scope = adminReadScope(actor);
      const row = await store.repos.audit.findById(id);
      const visible =
        row &&
        (scope.kind === 'all' ||
          (scope.kind === 'workspace' && row.workspaceId === scope.workspaceId) ||
          (scope.kind === 'self' && row.userId === scope.userId));
      if (!visible) throw notFound('Audit log entry');
      return toAuditEntry(row);
    },

    export: async (actor: Actor, query: AuditExportQuery) => {
      const filter = scoped(adminReadScope(actor), filterOf(query));
      const { rows, truncated } = await store.repos.audit.export(filter, query.limit);
      const entries = rows.map(toAuditEntry);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      if (query.format === 'json') {
        return {
          body: JSON.stringify(entries),
          contentType: 'application/json; charset=utf-8',
          filename: `audit-logs-${stamp}.json`,
          truncated,
          count: entries.length,
        };
      }
      const body = toCsv(
        EXPORT_COLUMNS,
        entries.map((e) => EXPORT_COLUMNS.map((c) => e[c])),
      );
      return { body, contentType: 'text/csv; charset=utf-8', filename: `audit-logs-${stamp}.csv`, truncated, count: entries.length };
    },

    stats: async (actor: Actor, query: AuditStatsQuery): Promise<AuditStats> => {
      const filter = scoped(adminReadScope(actor), filterOf(query));
      const stats = await store.repos.audit.stats(filter);
      return {
        total: stats.totals.total,
        failed: stats.totals.failed,
        succeeded: stats.totals.total - stats.totals.failed,
        firstAt: stats.totals.firstAt?.toISOString() ?? null,
        lastAt: stats.totals.lastAt?.toISOString() ?? null,
        byAction: stats.byAction,
        byResourceType: stats.byResourceType,
        byDay: stats.byDay,
        topUsers: stats.topUsers,
      };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
