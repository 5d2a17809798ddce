import { PAYMENTS_COMMANDS } from '@holdfast/contracts';
import { type Bus, serveCommand } from '@holdfast/messaging';
import type { CheckoutService } from './service.js';

/** Serves workspace-service's checkout command (the merged external wallet configs); returns a stopper. */
export function serveCheckoutCommands(bus: Bus, service: string, checkout: Pick<CheckoutService, 'setWalletSettings'>): () => void {
  const subscription = serveCommand(bus, PAYMENTS_COMMANDS.setCheckoutWalletSettings, service, (r) => checkout.setWalletSettings(r));
  return () => subscription.unsubscribe();
}
