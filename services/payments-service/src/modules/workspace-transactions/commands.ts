import { WORKSPACE_TRANSACTION_COMMANDS } from '@holdfast/contracts';
import { type Bus, serveCommand } from '@holdfast/messaging';
import type { WorkspaceTransactionsService } from './service.js';

/** Serves the Workspace API's transaction commands (contracts: WORKSPACE_TRANSACTION_COMMANDS); returns a stopper. */
export function serveWorkspaceTransactionCommands(bus: Bus, service: string, transactions: WorkspaceTransactionsService): () => void {
  const c = WORKSPACE_TRANSACTION_COMMANDS;
  const subscriptions = [
    serveCommand(bus, c.list, service, (r) => transactions.list(r)),
    serveCommand(bus, c.get, service, (r) => transactions.get(r)),
    serveCommand(bus, c.stats, service, (r) => transactions.stats(r)),
    serveCommand(bus, c.verifyKey, service, (r) => transactions.verifyKey(r)),
    serveCommand(bus, c.create, service, (r) => transactions.create(r)),
    serveCommand(bus, c.submitEscrowHash, service, (r) => transactions.submitEscrowHash(r)),
  ];
  return () => {
    for (const s of subscriptions) s.unsubscribe();
  };
}
