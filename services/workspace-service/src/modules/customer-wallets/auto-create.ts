import type { NewRemoteTask, RemoteTaskRow } from '../remote-tasks/repository.js';
import type { CustomerWalletService } from './service.js';

/**
 * `autoCreateCustomerWallets`: a new customer's wallet is a remote task inserted in the customer's
 * own transaction (so a committed customer always has its wallet step queued, and no provider call
 * runs inside that transaction), attempted right after the commit and retried by the runner until
 * the provider answers (docs/wallets.md#auto-created-customer-wallets).
 */
export function autoCreateWalletTask(workspaceId: string, customerId: string): NewRemoteTask {
  return { kind: 'customer-wallets.auto-create', workspaceId, payload: { workspaceId, customerId } };
}

/**
 * The handler of `customer-wallets.auto-create`. A provider failure throws (retried with backoff);
 * a workspace without a usable provider is recorded (audit `customer_wallet.auto_create_skip`)
 * and the task is done; a customer that has a wallet (or is gone) needs nothing.
 */
export function autoCreateWalletHandler(deps: { customerWallets: Pick<CustomerWalletService, 'autoCreate'> }) {
  return async (row: RemoteTaskRow): Promise<void> => {
    const { workspaceId, customerId } = row.payload as { workspaceId: string; customerId: string };
    await deps.customerWallets.autoCreate(workspaceId, customerId);
  };
}
