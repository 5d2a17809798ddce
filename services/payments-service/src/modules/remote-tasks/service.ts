import { WebhookCommands, type WebhookOwner } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import {
  type Bus,
  REMOTE_TASK_BATCH,
  REMOTE_TASK_KEEP_DONE_MS,
  REMOTE_TASK_PURGE_EVERY_MS,
  type RemoteTaskSettings,
  sendCommand,
  settleFailedRemoteTask,
} from '@holdfast/messaging';
import { createPollingWorker } from '@holdfast/runtime';
import type { NewRemoteTask, RemoteTaskRow, RemoteTasksRepository } from './repository.js';
import type { RemoteTaskKind } from './tables.js';

/** Runs one task; throws to be retried (or, on a 4xx AppError or a contract breach, given up). */
export type RemoteTaskHandler = (task: RemoteTaskRow) => Promise<void>;

/**
 * The durable outbound commands of payments-service (ADR 15). Each pass claims due tasks with
 * `FOR UPDATE SKIP LOCKED` (so any number of instances share them), runs each and marks it done,
 * or schedules its retry with exponential backoff. A task whose command the other side refuses
 * (4xx) is marked dead and logged: it would fail the same way forever. Nothing is held in memory:
 * a restart picks up every pending row.
 */
export function createRemoteTaskRunner(deps: {
  sql: Sql;
  repository: RemoteTasksRepository;
  handlers: Record<RemoteTaskKind, RemoteTaskHandler>;
  logger: Logger;
  settings: RemoteTaskSettings;
}) {
  const { sql, repository, handlers, settings } = deps;
  const log = deps.logger.child({ component: 'remote-tasks' });
  let lastPurge = 0;

  /** One pass over the due tasks; returns how many were claimed. */
  async function runOnce(): Promise<number> {
    return sql.begin(async (tx) => {
      const due = await repository.claimDue(tx, REMOTE_TASK_BATCH);
      for (const task of due) {
        try {
          await handlers[task.kind](task);
          await repository.finish(tx, task.id, 'done');
        } catch (error) {
          await settleFailedRemoteTask(error, task, {
            settings,
            log,
            retryLater: (delay, failure) => repository.retryLater(tx, task.id, delay, failure),
            giveUp: (failure) => repository.finish(tx, task.id, 'dead', failure),
          });
        }
      }
      return due.length;
    }) as Promise<number>;
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
        await repository.purgeDone(sql, REMOTE_TASK_KEEP_DONE_MS);
      }
      return claimed >= REMOTE_TASK_BATCH;
    },
  });

  return {
    runOnce,
    /** Starts a pass now instead of at the next poll (after a commit that queued tasks). Never waits. */
    wake: worker.wake,
    start: worker.start,
    /** Finishes the pass in progress (drain), then stops. */
    stop: worker.stop,
  };
}

export type RemoteTaskRunner = ReturnType<typeof createRemoteTaskRunner>;

// ---------------------------------------------------------------- the tasks

export const task = {
  /** The dispatcher deactivates every subscription of the platform (its payments platform was deactivated). */
  deactivatePlatformWebhooks: (platformId: string): NewRemoteTask => ({
    kind: 'webhooks.deactivate-owner',
    platformId,
    payload: { owner: { platformId }, reason: 'its payments platform was deactivated' },
  }),
};

/** What the platforms module needs: queue tasks in its transaction, wake the runner after the commit. */
export interface RemoteTasksOutbox {
  enqueue: (tx: Queryable, tasks: NewRemoteTask[]) => Promise<string[]>;
  wake: () => void;
}

/** The handlers of every task kind. */
export function remoteTaskHandlers(deps: { bus: Bus }): Record<RemoteTaskKind, RemoteTaskHandler> {
  const { bus } = deps;
  return {
    'webhooks.deactivate-owner': async (row) => {
      const { owner, reason } = row.payload as { owner: WebhookOwner; reason?: string };
      await sendCommand(bus, WebhookCommands.deactivateOwner, { owner, ...(reason ? { reason } : {}) });
    },
  };
}
