import { AppError, PAYMENTS_COMMANDS, WebhookCommands, type WebhookOwner } from '@holdfast/contracts';
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
import { Gauge, type Registry } from 'prom-client';
import type { Store } from '../../db/store.js';
import type { NewRemoteTask, RemoteTaskRow, RemoteTasksRepository } from './repository.js';
import type { RemoteTaskKind } from './tables.js';

/** Runs one task with the repositories of its savepoint; throws to be retried (or, on a 4xx AppError, given up). */
export type RemoteTaskHandler<R> = (task: RemoteTaskRow, repos: R) => Promise<void>;

/**
 * The durable outbound commands of workspace-service. Each pass claims due tasks with `FOR UPDATE
 * SKIP LOCKED` (so any number of instances share them), runs each in a savepoint and marks it
 * done, or schedules its retry with exponential backoff. A task whose command the other side
 * refuses (4xx) is marked dead and logged: it would fail the same way forever.
 */
export function createRemoteTaskRunner<R extends { remoteTasks: RemoteTasksRepository }>(deps: {
  store: Store<R>;
  handlers: Record<RemoteTaskKind, RemoteTaskHandler<R>>;
  logger: Logger;
  settings: RemoteTaskSettings;
  registry?: Registry;
}) {
  const { store, handlers, settings } = deps;
  const log = deps.logger.child({ component: 'remote-tasks' });
  let lastPurge = 0;

  if (deps.registry) {
    new Gauge({
      name: 'workspace_remote_tasks',
      help: 'Commands owed to payments and the webhook dispatcher, and customer wallet steps, by status (pending: not yet answered; dead: refused, needs a look)',
      labelNames: ['status'] as const,
      registers: [deps.registry],
      async collect() {
        const counts = await store.repos.remoteTasks.countByStatus();
        this.set({ status: 'pending' }, counts.pending);
        this.set({ status: 'dead' }, counts.dead);
      },
    });
  }

  /** One pass: the due tasks, or the given ones (waiting for a runner that holds them). Returns how many were done. */
  async function runOnce(ids?: string[]): Promise<number> {
    if (ids && ids.length === 0) return 0;
    return store.transaction(async (repos, savepoint) => {
      const due = ids ? await repos.remoteTasks.claimThese(ids) : await repos.remoteTasks.claimDue(REMOTE_TASK_BATCH);
      let done = 0;
      for (const task of due) {
        try {
          await savepoint(async (inner) => {
            await handlers[task.kind](task, inner);
            await inner.remoteTasks.finish(task.id, 'done');
          });
          done += 1;
        } catch (error) {
          await settleFailedRemoteTask(error, task, {
            settings,
            log,
            retryLater: (delay, failure) => repos.remoteTasks.retryLater(task.id, delay, failure),
            giveUp: (failure) => repos.remoteTasks.finish(task.id, 'dead', failure),
          });
        }
      }
      return done;
    });
  }

  const worker = createPollingWorker({
    name: 'remote-tasks',
    logger: deps.logger,
    intervalMs: settings.pollIntervalMs,
    maxBackoffMs: 60_000,
    pass: async () => {
      const done = await runOnce();
      if (Date.now() - lastPurge > REMOTE_TASK_PURGE_EVERY_MS) {
        lastPurge = Date.now();
        await store.repos.remoteTasks.purgeDone(new Date(Date.now() - REMOTE_TASK_KEEP_DONE_MS));
      }
      return done >= REMOTE_TASK_BATCH;
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
    /** Starts a pass now instead of at the next poll. */
    wake: worker.wake,
    start: worker.start,
    /** Finishes the pass in progress (drain), then stops. */
    stop: worker.stop,
  };
}

export type RemoteTaskRunner = ReturnType<typeof createRemoteTaskRunner>;

// ---------------------------------------------------------------- the tasks

export const task = {
  deactivateWorkspacePlatforms: (workspaceId: string): NewRemoteTask => ({
    kind: 'payments.deactivate-workspace-platforms',
    workspaceId,
    payload: { workspaceId },
  }),
  deactivatePlatform: (workspaceId: string, platformId: string): NewRemoteTask => ({
    kind: 'payments.deactivate-platform',
    workspaceId,
    payload: { workspaceId, platformId },
  }),
  deactivateWebhooks: (workspaceId: string, owner: WebhookOwner, reason: string): NewRemoteTask => ({
    kind: 'webhooks.deactivate-owner',
    workspaceId,
    payload: { owner, reason },
  }),
  /**
   * `autoCreateCustomerWallets`: a new customer's wallet is a remote task inserted in the customer's
   * own transaction (so a committed customer always has its wallet step queued, and no provider call
   * runs inside that transaction), attempted right after the commit and retried by the runner until
   * the provider answers (docs/wallets.md#auto-created-customer-wallets). Handled by
   * `wallets/customer/auto-create.ts`.
   */
  autoCreateCustomerWallet: (workspaceId: string, customerId: string): NewRemoteTask => ({
    kind: 'customer-wallets.auto-create',
    workspaceId,
    payload: { workspaceId, customerId },
  }),
};

/** The handlers of the tasks that ask payments and the dispatcher to deactivate things. */
export function deactivationHandlers<R extends { remoteTasks: RemoteTasksRepository }>(deps: { bus: Bus }) {
  const { bus } = deps;
  const platformWebhooks = (workspaceId: string, platformId: string) =>
    task.deactivateWebhooks(workspaceId, { platformId }, 'its payments platform was deactivated');
  return {
    /** Every platform of the workspace; then the webhooks of each (a deleted workspace). */
    'payments.deactivate-workspace-platforms': async (row: RemoteTaskRow, repos: R) => {
      const { workspaceId } = row.payload as { workspaceId: string };
      const reply = await sendCommand(bus, PAYMENTS_COMMANDS.deactivateWorkspacePlatforms, { workspaceId });
      await repos.remoteTasks.enqueue(reply.platformIds.map((platformId) => platformWebhooks(workspaceId, platformId)));
    },
    /** One platform (a revoked or abandoned sandbox credential); then its webhooks. Not the workspace's (404): nothing to do. */
    'payments.deactivate-platform': async (row: RemoteTaskRow, repos: R) => {
      const { workspaceId, platformId } = row.payload as { workspaceId: string; platformId: string };
      try {
        await sendCommand(bus, PAYMENTS_COMMANDS.deactivatePlatform, { workspaceId, platformId });
      } catch (error) {
        if (error instanceof AppError && error.code === 'NOT_FOUND') return;
        throw error;
      }
      await repos.remoteTasks.enqueue([platformWebhooks(workspaceId, platformId)]);
    },
    'webhooks.deactivate-owner': async (row: RemoteTaskRow) => {
      const { owner, reason } = row.payload as { owner: WebhookOwner; reason?: string };
      await sendCommand(bus, WebhookCommands.deactivateOwner, { owner, ...(reason ? { reason } : {}) });
    },
  } satisfies Partial<Record<RemoteTaskKind, RemoteTaskHandler<R>>>;
}
