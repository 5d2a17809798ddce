import { and, desc, eq, gte, like, lt, type SQL, sql } from 'drizzle-orm';
import { containsText, escapeLike, findRow, pageOf } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import { auditLogs } from './tables.js';

export type AuditRow = typeof auditLogs.$inferSelect;
export type NewAuditRow = typeof auditLogs.$inferInsert;

/** Filters of audit reads, after the caller's scope was applied. */
export interface AuditFilter {
  workspaceId?: string;
  userId?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  success?: boolean;
  from?: string;
  to?: string;
  search?: string;
}

function where(filter: AuditFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [
    filter.workspaceId ? eq(auditLogs.workspaceId, filter.workspaceId) : undefined,
    filter.userId ? eq(auditLogs.userId, filter.userId) : undefined,
    filter.action?.endsWith('.*')
      ? like(auditLogs.action, `${escapeLike(filter.action.slice(0, -1))}%`)
      : filter.action
        ? eq(auditLogs.action, filter.action)
        : undefined,
    filter.resourceType ? eq(auditLogs.resourceType, filter.resourceType) : undefined,
    filter.resourceId ? eq(auditLogs.resourceId, filter.resourceId) : undefined,
    filter.success === undefined ? undefined : eq(auditLogs.success, filter.success),
    filter.from ? gte(auditLogs.createdAt, new Date(filter.from)) : undefined,
    filter.to ? lt(auditLogs.createdAt, new Date(filter.to)) : undefined,
    containsText(filter.search, [auditLogs.details, auditLogs.errorMessage, auditLogs.action]),
  ];
  return and(...conditions);
}

export interface AuditStatsRows {
  totals: { total: number; failed: number; firstAt: Date | null; lastAt: Date | null };
  byAction: { action: string; total: number; failed: number }[];
  byResourceType: { resourceType: string; total: number }[];
  byDay: { date: string; total: number; failed: number }[];
  topUsers: { userId: string; total: number }[];
}

const failedCount = sql<number>`count(*) filter (where ${auditLogs.success} = false)::int`;
const totalCount = sql<number>`count(*)::int`;

export function createAuditRepository(db: Executor) {
  return {
    insert: async (row: NewAuditRow): Promise<void> => {
      await db.insert(auditLogs).values(row);
    },

    list: async (filter: AuditFilter, page: number, limit: number): Promise<{ rows: AuditRow[]; total: number }> => {
      return pageOf(db, auditLogs, where(filter), [desc(auditLogs.createdAt), desc(auditLogs.seq)], page, limit);
    },

    findById: async (id: string): Promise<AuditRow | undefined> => {
      return findRow(db, auditLogs, eq(auditLogs.id, id));
    },

    /** Newest first, at most `limit` rows, plus whether more matched. */
    export: async (filter: AuditFilter, limit: number): Promise<{ rows: AuditRow[]; truncated: boolean }> => {
      const rows = await db
        .select()
        .from(auditLogs)
        .where(where(filter))
        .orderBy(desc(auditLogs.createdAt), desc(auditLogs.seq))
        .limit(limit + 1);
      return { rows: rows.slice(0, limit), truncated: rows.length > limit };
    },

    stats: async (filter: AuditFilter): Promise<AuditStatsRows> => {
      const condition = where(filter);
      const day = sql<string>`to_char(${auditLogs.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
      const [[totals], byAction, byResourceType, byDay, topUsers] = await Promise.all([
        db
          .select({
            total: totalCount,
            failed: failedCount,
            firstAt: sql<Date | null>`min(${auditLogs.createdAt})`.mapWith((v) => (v ? new Date(v) : null)),
            lastAt: sql<Date | null>`max(${auditLogs.createdAt})`.mapWith((v) => (v ? new Date(v) : null)),
          })
          .from(auditLogs)
          .where(condition),
        db
          .select({ action: auditLogs.action, total: totalCount, failed: failedCount })
          .from(auditLogs)
          .where(condition)
          .groupBy(auditLogs.action)
          .orderBy(desc(totalCount), auditLogs.action),
        db
          .select({ resourceType: auditLogs.resourceType, total: totalCount })
          .from(auditLogs)
          .where(condition)
          .groupBy(auditLogs.resourceType)
          .orderBy(desc(totalCount), auditLogs.resourceType),
        db.select({ date: day, total: totalCount, failed: failedCount }).from(auditLogs).where(condition).groupBy(day).orderBy(day),
        db
          .select({ userId: sql<string>`${auditLogs.userId}`, total: totalCount })
          .from(auditLogs)
          .where(and(condition, sql`${auditLogs.userId} is not null`))
          .groupBy(auditLogs.userId)
          .orderBy(desc(totalCount), auditLogs.userId)
          .limit(10),
      ]);
      return {
        totals: totals ?? { total: 0, failed: 0, firstAt: null, lastAt: null },
        byAction,
        byResourceType,
        byDay,
        topUsers,
      };
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
