import { registerCountGauge } from '@holdfast/http-kit';
import type { Logger, TraceCarrier } from '@holdfast/logging';
import {
  REMOTE_TASK_BATCH,
  REMOTE_TASK_KEEP_DONE_MS,
  REMOTE_TASK_PURGE_EVERY_MS,
  type RemoteTaskSettings,
  remoteTaskBackoffMs,
  remoteTaskFailure,
  remoteTaskRetryable,
} from '@holdfast/messaging';
import type { Registry } from 'prom-client';
import { defineLeasedJob, workClaimed } from './leased-job.js';
import { createPollingWorker } from './worker.js';

/** What the runner reads of a task row; each process's `remote_tasks` row has more. */
export interface RemoteTask {
  id: string;
  kind: string;
  attempts: number;
  payload: unknown;
  /** The trace of the change that queued the task (its request or message): each run continues it. */
  traceContext?: TraceCarrier | null;
}

/**
 * How one process stores its remote tasks, in its own database access style. Every step of a pass
 * takes the transaction (`Tx`) that `transaction` opened and the claim locked the tasks in.
 */
export interface RemoteTaskStorage<T extends RemoteTask, Tx> {
  transaction: <V>(work: (tx: Tx) => Promise<V>) => Promise<V>;
  /** Due pending tasks, locked; rows another runner holds are skipped. */
  claimDue: (tx: Tx, limit: number) => Promise<T[]>;
  /** The given tasks, still pending, locked (waiting for a runner that holds one). Only where `attempt` is used. */
  claimThese?: (tx: Tx, ids: string[]) => Promise<T[]>;
  /** Runs the task's handler and marks it done; a throw leaves the task as it was (a savepoint where it wrote). */
  complete: (tx: Tx, task: T) => Promise<void>;
  retryLater: (tx: Tx, task: T, delayMs: number, failure: string) => Promise<void>;
  giveUp: (tx: Tx, task: T, failure: string) => Promise<void>;
  /** Deletes done tasks finished more than `olderThanMs` ago (dead ones are kept for inspection). */
  purgeDone: (olderThanMs: number) => Promise<void>;
}

/**
 * The runner of a process's remote tasks (the commands it owes another process: workspace ADR 10,
 * payments ADR 15). Each pass claims due tasks with `FOR UPDATE SKIP LOCKED` (so any number of
 * instances share them), completes each, or schedules its retry with exponential backoff; a task
 * whose command the other side refuses (4xx) is marked dead and logged: it would fail the same way
 * forever. Nothing is held in memory: a restart picks up every pending row. The processes differ
 * only in their storage and their handlers. It is a leased job held by its claim's transaction
 * (ADR 65): the job below states its batch, attempts and back-off.
 */
export function createRemoteTaskRunner<T extends RemoteTask, Tx>(deps: {
  /** The process's `remote_tasks` table (the job's rows). */
  table: object;
  storage: RemoteTaskStorage<T, Tx>;
  logger: Logger;
  settings: RemoteTaskSettings;
  /** A gauge of the tasks still owed (`pending`) and refused (`dead`), by `status`. */
  gauge?: {
    registry: Registry;
    name: string;
    help: string;
    countByStatus: () => Promise<{ pending: number; dead: number }>;
  };
}) {
  const { storage, settings, gauge } = deps;
  const log = deps.logger.child({ component: 'remote-tasks' });
  let lastPurge = 0;
  const job = defineLeasedJob<T>({
    name: 'remote-tasks',
    table: deps.table,
    lease: 'transaction',
    batch: REMOTE_TASK_BATCH,
    // Retried until answered: only a refusal (or a broken payload) gives a task up.
    attempts: Number.POSITIVE_INFINITY,
    backoff: (attempts) => remoteTaskBackoffMs(settings, attempts),
    permanent: (error) => !remoteTaskRetryable(error),
    failure: remoteTaskFailure,
    // The payload stays in the row (a dead one is kept for inspection), out of the logs.
    describe: (task) => ({ taskId: task.id, kind: task.kind, attempts: task.attempts + 1 }),
    // Under the span of the change that queued it: the command it sends (cmd.* send, its
    // headers) and what the other process does with it join that trace.
    span: (task) => ({
      name: `remote-task ${task.kind}`,
      parent: task.traceContext,
      attributes: { 'holdfast.remote_task.id': task.id, 'holdfast.remote_task.attempt': task.attempts + 1 },
    }),
    messages: { retrying: 'remote task failed; retrying', gaveUp: 'remote task refused by the other side; given up' },
  });
  if (gauge) {
    registerCountGauge(gauge.registry, {
      name: gauge.name,
      help: gauge.help,
      label: 'status',
      counts: async () => {
        const { pending, dead } = await gauge.countByStatus();
        return { pending, dead };
      },
    });
  }

  /** One pass: the due tasks, or the given ones (waiting for a runner that holds them). Returns how many were claimed. */
  async function runOnce(ids?: string[]): Promise<number> {
    if (ids && ids.length === 0) return 0;
    const { claimThese } = storage;
    if (ids && !claimThese) throw new Error('this runner cannot claim given tasks (no claimThese)');
    return storage.transaction(async (tx) => {
      const claimed = ids && claimThese ? await claimThese(tx, ids) : await storage.claimDue(tx, job.batch);
      await workClaimed(
        job,
        claimed,
        {
          run: (task) => storage.complete(tx, task),
          retry: (task, delayMs, failure) => storage.retryLater(tx, task, delayMs, failure),
          giveUp: (task, failure) => storage.giveUp(tx, task, failure),
        },
        log,
      );
      return claimed.length;
    });
  }

  const worker = createPollingWorker({
    name: 'remote-tasks',
    logger: deps.logger,
    intervalMs: settings.pollIntervalMs,
    maxBackoffMs: 60_000,
    pass: async () => {
      const claimed = await runOnce();
      if (Date.now() - lastPurge > REMOTE_TASK_PURGE_EVERY_MS) {
        lastPurge = Date.now();
        await storage.purgeDone(REMOTE_TASK_KEEP_DONE_MS);
      }
      return claimed >= job.batch;
    },
  });

  return {
    runOnce,
    /**
     * Runs the given tasks now (right after the commit that created them), or waits for the runner
     * that already took them: when it returns, each was attempted once. Failures stay scheduled.
     */
    attempt: async (ids: string[]): Promise<void> => {
      try {
        await runOnce(ids);
      } catch (error) {
        log.warn({ err: error }, 'immediate run of remote tasks failed; the runner retries them');
      }
      // Tasks those ones queued (the webhooks of each deactivated platform) go at the next pass: now.
      worker.wake();
    },
    /** Starts a pass now instead of at the next poll (after a commit that queued tasks). Never waits. */
    wake: worker.wake,
    start: worker.start,
    /** Finishes the pass in progress (drain), then stops. */
    stop: worker.stop,
  };
}

export type RemoteTaskRunner = ReturnType<typeof createRemoteTaskRunner>;
