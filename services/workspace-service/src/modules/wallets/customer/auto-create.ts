import type { RemoteTaskRow } from '../../remote-tasks/index.js';
import type { CustomerWalletService } from './service.js';

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
