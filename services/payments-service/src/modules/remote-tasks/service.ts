import { ownerKindOf, WebhookCommands, type WebhookOwner, webhookCommandOf } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import { type Bus, type RemoteTaskSettings, sendCommand } from '@holdfast/messaging';
import { createRemoteTaskRunner as createTaskRunner } from '@holdfast/runtime';
import type { Registry } from 'prom-client';
import type { NewRemoteTask, RemoteTaskRow, RemoteTasksRepository } from './repository.js';
import { type RemoteTaskKind, remoteTasks } from './tables.js';

/** Runs one task; throws to be retried (or, on a 4xx AppError or a contract breach, given up). */
export type RemoteTaskHandler = (task: RemoteTaskRow) => Promise<void>;

/**
 * The durable outbound commands of payments-service (ADR 15): the runner of `@holdfast/runtime`
 * over `payments.remote_tasks`. A task's handler runs in the pass's transaction, before its row is
 * marked done.
 */
export function createRemoteTaskRunner(deps: {
  sql: Sql;
  repository: RemoteTasksRepository;
  handlers: Record<RemoteTaskKind, RemoteTaskHandler>;
  logger: Logger;
  settings: RemoteTaskSettings;
  registry: Registry;
}) {
  const { sql, repository, handlers } = deps;
  return createTaskRunner<RemoteTaskRow, Queryable>({
    table: remoteTasks,
    logger: deps.logger,
    settings: deps.settings,
    gauge: {
      registry: deps.registry,
      name: 'payments_remote_tasks',
      help: 'Commands owed to other processes by status (pending: not yet answered; dead: refused, needs a look)',
      countByStatus: () => repository.countByStatus(sql),
    },
    storage: {
      transaction: (work) => sql.begin(work) as ReturnType<typeof work>,
      claimDue: repository.claimDue,
      complete: async (tx, task) => {
        await handlers[task.kind](task);
        await repository.finish(tx, task.id, 'done');
      },
      retryLater: (tx, task, delayMs, failure) => repository.retryLater(tx, task.id, delayMs, failure),
      giveUp: (tx, task, failure) => repository.finish(tx, task.id, 'dead', failure),
      purgeDone: (olderThanMs) => repository.purgeDone(sql, olderThanMs),
    },
  });
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
      await sendCommand(bus, webhookCommandOf(WebhookCommands.deactivateOwner, ownerKindOf(owner)), {
        owner,
        ...(reason ? { reason } : {}),
      });
    },
  };
}
