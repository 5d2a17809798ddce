import type { Queryable } from '@holdfast/db';
import type { PlatformBilling } from '../auth/index.js';
import { readPlatformSettings } from './repository.js';

/** The platform's billing defaults out of its settings (null: none). */
export function platformBilling(settings: Record<string, unknown>): PlatformBilling | null {
  const billing = settings.billing;
  return billing && typeof billing === 'object' && !Array.isArray(billing) ? (billing as PlatformBilling) : null;
}

/** The billing defaults of a platform as stored now (quotes price with them; creation requires a quote when enabled). */
export async function platformBillingOf(q: Queryable, platformId: string): Promise<PlatformBilling | null> {
  return platformBilling(await readPlatformSettings(q, platformId));
}
