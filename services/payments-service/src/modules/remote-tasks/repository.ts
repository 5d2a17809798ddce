import { uuidv7 } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { activeTraceCarrier } from '@holdfast/logging';
import { type RemoteTaskKind, type RemoteTaskStatus, remoteTasks } from './tables.js';

/** A task as stored: the table's row type, read through the one row mapper of `@holdfast/db`. */
export type RemoteTaskRow = typeof remoteTasks.$inferSelect;
const toTask = rowMapper(remoteTasks);

export interface NewRemoteTask {
  kind: RemoteTaskKind;
  platformId: string;
  payload: Record<string, unknown>;
}

/** The remote task queue (`payments.remote_tasks`): enqueue inside the caller's transaction, claim with SKIP LOCKED. */
export function createRemoteTasksRepository() {
  return {
    enqueue: async (tx: Queryable, tasks: NewRemoteTask[]): Promise<string[]> => {
      const ids: string[] = [];
      const traceContext = activeTraceCarrier();
      for (const t of tasks) {
        const id = uuidv7();
        await tx`
          insert into remote_tasks (id, kind, payload, platform_id, trace_context)
          values (${id}, ${t.kind}, ${JSON.stringify(t.payload)}::jsonb, ${t.platformId},
                  ${traceContext === null ? null : JSON.stringify(traceContext)}::jsonb)`;
        ids.push(id);
      }
      return ids;
    },

    /** Due pending tasks, locked for this transaction; rows another runner holds are skipped. */
    claimDue: async (tx: Queryable, limit: number): Promise<RemoteTaskRow[]> => {
      const rows = await tx`
        select * from remote_tasks
        where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at
        limit ${limit}
        for update skip locked`;
      return rows.map(toTask);
    },

    finish: async (q: Queryable, id: string, status: 'done' | 'dead', error: string | null = null): Promise<void> => {
      await q`
        update remote_tasks set status = ${status}, completed_at = now(), last_error = ${error}, attempts = attempts + 1
        where id = ${id}`;
    },

    /** Counts the failed attempt and schedules the next one. */
    retryLater: async (q: Queryable, id: string, delayMs: number, error: string): Promise<void> => {
      await q`
        update remote_tasks
        set attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}), last_error = ${error}
        where id = ${id}`;
    },

    byPlatform: async (q: Queryable, platformId: string): Promise<RemoteTaskRow[]> => {
      const rows = await q`select * from remote_tasks where platform_id = ${platformId} order by created_at, id`;
      return rows.map(toTask);
    },

    countByStatus: async (q: Queryable): Promise<Record<RemoteTaskStatus, number>> => {
      const rows = await q<{ status: RemoteTaskStatus; total: number }[]>`
        select status, count(*)::int as total from remote_tasks where status in ('pending', 'dead') group by status`;
      const counts: Record<RemoteTaskStatus, number> = { pending: 0, done: 0, dead: 0 };
      for (const row of rows) counts[row.status] = row.total;
      return counts;
    },

    /** Deletes finished tasks older than the cutoff (dead ones are kept for inspection). */
    purgeDone: async (q: Queryable, olderThanMs: number): Promise<void> => {
      await q`
        delete from remote_tasks
        where status = 'done' and completed_at <= now() - make_interval(secs => ${olderThanMs / 1000})`;
    },
  };
}

export type RemoteTasksRepository = ReturnType<typeof createRemoteTasksRepository>;
