import { uuidv7 } from '@holdfast/contracts';
import { activeTraceCarrier } from '@holdfast/logging';
import { and, asc, count, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../db/store.js';
import { type RemoteTaskKind, type RemoteTaskStatus, remoteTasks } from './tables.js';

export type RemoteTaskRow = typeof remoteTasks.$inferSelect;

export interface NewRemoteTask {
  kind: RemoteTaskKind;
  workspaceId: string;
  payload: Record<string, unknown>;
  /** Not before this moment (default: at once). */
  notBefore?: Date;
}

/** The remote task queue: enqueue inside the caller's transaction, claim with SKIP LOCKED. */
export function createRemoteTasksRepository(db: Executor) {
  return {
    enqueue: async (tasks: NewRemoteTask[]): Promise<string[]> => {
      if (tasks.length === 0) return [];
      // The trace of the request (or message) that queued them: the runner's span continues it.
      const traceContext = activeTraceCarrier();
      const rows = tasks.map((t) => ({
        id: uuidv7(),
        kind: t.kind,
        workspaceId: t.workspaceId,
        payload: t.payload,
        traceContext,
        ...(t.notBefore ? { nextAttemptAt: t.notBefore } : {}),
      }));
      await db.insert(remoteTasks).values(rows);
      return rows.map((r) => r.id);
    },

    /** Due pending tasks, locked for this transaction; rows another runner holds are skipped. */
    claimDue: async (limit: number): Promise<RemoteTaskRow[]> =>
      db
        .select()
        .from(remoteTasks)
        .where(and(eq(remoteTasks.status, 'pending'), lte(remoteTasks.nextAttemptAt, sql`now()`)))
        .orderBy(asc(remoteTasks.nextAttemptAt))
        .limit(limit)
        .for('update', { skipLocked: true }),

    /**
     * The given tasks, still pending, locked for this transaction. Waits for a runner that holds
     * one of them: once it is through, a task it finished is no longer pending and is not returned.
     */
    claimThese: async (ids: string[]): Promise<RemoteTaskRow[]> =>
      db
        .select()
        .from(remoteTasks)
        .where(and(eq(remoteTasks.status, 'pending'), inArray(remoteTasks.id, ids)))
        .orderBy(asc(remoteTasks.id))
        .for('update'),

    finish: async (id: string, status: Extract<RemoteTaskStatus, 'done' | 'dead'>, error: string | null = null): Promise<void> => {
      await db
        .update(remoteTasks)
        .set({ status, completedAt: sql`now()`, lastError: error, attempts: sql`${remoteTasks.attempts} + 1` })
        .where(eq(remoteTasks.id, id));
    },

    /** Counts the failed attempt and schedules the next one. */
    retryLater: async (id: string, delayMs: number, error: string): Promise<void> => {
      await db
        .update(remoteTasks)
        .set({
          attempts: sql`${remoteTasks.attempts} + 1`,
          nextAttemptAt: sql`now() + make_interval(secs => ${delayMs / 1000})`,
          lastError: error,
        })
        .where(eq(remoteTasks.id, id));
    },

    /** Marks a pending task done without running it (its purpose was met another way); skips it if a runner holds it. */
    cancelIfIdle: async (id: string): Promise<void> => {
      await db.execute(sql`
        update ${remoteTasks} set status = 'done', completed_at = now(), last_error = 'not needed'
        where id = (select id from ${remoteTasks} where id = ${id} and status = 'pending' for update skip locked)`);
    },

    byWorkspace: async (workspaceId: string): Promise<RemoteTaskRow[]> =>
      db.select().from(remoteTasks).where(eq(remoteTasks.workspaceId, workspaceId)).orderBy(asc(remoteTasks.createdAt)),

    countByStatus: async (): Promise<Record<RemoteTaskStatus, number>> => {
      const rows = await db
        .select({ status: remoteTasks.status, total: count() })
        .from(remoteTasks)
        .where(inArray(remoteTasks.status, ['pending', 'dead']))
        .groupBy(remoteTasks.status);
      const counts: Record<RemoteTaskStatus, number> = { pending: 0, done: 0, dead: 0 };
      for (const row of rows) counts[row.status] = row.total;
      return counts;
    },

    /** Deletes finished tasks older than the cutoff (dead ones are kept for inspection). */
    purgeDone: async (olderThan: Date): Promise<void> => {
      await db.delete(remoteTasks).where(and(eq(remoteTasks.status, 'done'), lte(remoteTasks.completedAt, olderThan)));
    },
  };
}

export type RemoteTasksRepository = ReturnType<typeof createRemoteTasksRepository>;
