import {
  AppError,
  type CheckoutWalletSettings,
  ownerKindOf,
  PAYMENTS_COMMANDS,
  WebhookCommands,
  type WebhookOwner,
  webhookCommandOf,
} from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { type Bus, type RemoteTaskSettings, sendCommand } from '@holdfast/messaging';
import { createRemoteTaskRunner as createTaskRunner } from '@holdfast/runtime';
import type { Registry } from 'prom-client';
import type { Savepoint, Store } from '../../db/store.js';
import type { NewRemoteTask, RemoteTaskRow, RemoteTasksRepository } from './repository.js';
import { type RemoteTaskKind, remoteTasks } from './tables.js';

/** Runs one task with the repositories of its savepoint; throws to be retried (or, on a 4xx AppError, given up). */
export type RemoteTaskHandler<R> = (task: RemoteTaskRow, repos: R) => Promise<void>;

/**
 * The durable outbound commands of workspace-service (ADR 10): the runner of `@holdfast/runtime`
 * over `workspace.remote_tasks`. A task's handler runs in a savepoint of the pass's transaction
 * with the row's `done`, so a failed handler leaves nothing it wrote.
 */
export function createRemoteTaskRunner<R extends { remoteTasks: RemoteTasksRepository }>(deps: {
  store: Store<R>;
  handlers: Record<RemoteTaskKind, RemoteTaskHandler<R>>;
  logger: Logger;
  settings: RemoteTaskSettings;
  registry?: Registry;
}) {
  const { store, handlers } = deps;

  return createTaskRunner<RemoteTaskRow, { repos: R; savepoint: Savepoint<R> }>({
    table: remoteTasks,
    logger: deps.logger,
    settings: deps.settings,
    ...(deps.registry && {
      gauge: {
        registry: deps.registry,
        name: 'workspace_remote_tasks',
        help: 'Commands owed to payments and the webhook dispatcher, and customer wallet steps, by status (pending: not yet answered; dead: refused, needs a look)',
        countByStatus: store.repos.remoteTasks.countByStatus,
      },
    }),
    storage: {
      transaction: (work) => store.transaction((repos, savepoint) => work({ repos, savepoint })),
      claimDue: ({ repos }, limit) => repos.remoteTasks.claimDue(limit),
      claimThese: ({ repos }, ids) => repos.remoteTasks.claimThese(ids),
      complete: ({ savepoint }, task) =>
        savepoint(async (inner) => {
          await handlers[task.kind](task, inner);
          await inner.remoteTasks.finish(task.id, 'done');
        }),
      retryLater: ({ repos }, task, delayMs, failure) => repos.remoteTasks.retryLater(task.id, delayMs, failure),
      giveUp: ({ repos }, task, failure) => repos.remoteTasks.finish(task.id, 'dead', failure),
      purgeDone: (olderThanMs) => store.repos.remoteTasks.purgeDone(new Date(Date.now() - olderThanMs)),
    },
  });
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
  /** Payments' copy of the workspace's checkout wallet settings is out of date: the handler reads them fresh and sends them. */
  syncCheckoutWalletSettings: (workspaceId: string): NewRemoteTask => ({
    kind: 'payments.sync-checkout-wallet-settings',
    workspaceId,
    payload: { workspaceId },
  }),
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
    /** Every platform of the workspace; then the webhooks of each (a deleted workspace, or one that left `active`). */
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
      await sendCommand(bus, webhookCommandOf(WebhookCommands.deactivateOwner, ownerKindOf(owner)), {
        owner,
        ...(reason ? { reason } : {}),
      });
    },
  } satisfies Partial<Record<RemoteTaskKind, RemoteTaskHandler<R>>>;
}

/**
 * `payments.sync-checkout-wallet-settings`: reads the workspace's configs when it runs (not when it
 * was queued), so any task sends the latest; `asOf` (the database's time of the read, one clock for
 * every instance) lets payments drop a late one that read before another that already landed.
 */
export function checkoutSettingsHandler<R extends { remoteTasks: RemoteTasksRepository }>(deps: {
  bus: Bus;
  settingsOf: (workspaceId: string) => Promise<{ settings: CheckoutWalletSettings | null; asOf: string }>;
}): RemoteTaskHandler<R> {
  return async (row) => {
    const { workspaceId } = row.payload as { workspaceId: string };
    const { settings, asOf } = await deps.settingsOf(workspaceId);
    await sendCommand(deps.bus, PAYMENTS_COMMANDS.setCheckoutWalletSettings, { workspaceId, settings, asOf });
  };
}
