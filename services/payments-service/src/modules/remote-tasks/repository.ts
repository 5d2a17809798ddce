import { uuidv7 } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { isoOf } from '@holdfast/db';
import { activeTraceCarrier, type TraceCarrier } from '@holdfast/logging';
import type { RemoteTaskKind, RemoteTaskStatus } from './tables.js';

export interface RemoteTaskRow {
  id: string;
  kind: RemoteTaskKind;
  payload: Record<string, unknown>;
  platformId: string;
  status: RemoteTaskStatus;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  traceContext: TraceCarrier | null;
  createdAt: string;
  completedAt: string | null;
}

export interface NewRemoteTask {
  kind: RemoteTaskKind;
  platformId: string;
  payload: Record<string, unknown>;
}

interface Row {
  id: string;
  kind: RemoteTaskKind;
  payload: Record<string, unknown>;
  platform_id: string;
  status: RemoteTaskStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  trace_context: TraceCarrier | null;
  created_at: string;
  completed_at: string | null;
}

function toTask(r: Row): RemoteTaskRow {
  return {
    id: r.id,
    kind: r.kind,
    payload: r.payload,
    platformId: r.platform_id,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: isoOf(r.next_attempt_at),
    lastError: r.last_error,
    traceContext: r.trace_context,
    createdAt: isoOf(r.created_at),
    completedAt: r.completed_at === null ? null : isoOf(r.completed_at),
  };
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
      const rows = await tx<Row[]>`
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
      const rows = await q<Row[]>`select * from remote_tasks where platform_id = ${platformId} order by created_at, id`;
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
