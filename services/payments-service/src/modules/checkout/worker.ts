import type { Logger } from '@holdfast/logging';
import { createPollingWorker } from '@holdfast/runtime';
import type { CheckoutService } from './service.js';

/** How many sessions one pass expires (one database transaction). */
const EXPIRY_BATCH = 100;

/**
 * The expiry worker (docs/checkout.md): open sessions past `expiresAt` become `expired` with
 * `checkout.session.expired`, and so do processing ones never funded once nothing can fund them. A full batch runs the next pass at once; otherwise it sleeps until
 * the next open session's expiry, at most `intervalMs` (a session created meanwhile may expire
 * sooner). Any number of instances may run it: sessions are claimed with `skip locked`.
 */
export function createCheckoutExpiryWorker(deps: { service: CheckoutService; logger: Logger; intervalMs: number }) {
  const { service, intervalMs } = deps;
  return createPollingWorker({
    name: 'checkout expiry',
    logger: deps.logger,
    intervalMs,
    pass: async () => {
      if ((await service.expireDue(EXPIRY_BATCH)) >= EXPIRY_BATCH) return true;
      const next = await service.msUntilNextExpiry();
      // 0 with nothing claimed: another instance holds them; look again shortly.
      return next === null ? false : Math.min(Math.max(next, 50), intervalMs);
    },
  });
}
