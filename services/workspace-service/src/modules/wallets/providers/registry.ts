import { CUSTODY_CONFIG_SCHEMAS, type CustodyConfig, type CustodyProviderType } from '@holdfast/contracts';
import type { WalletProviderAdapter } from './adapter.js';
import { createCustodyAAdapter } from './custody-a.js';
import { createCustodyBAdapter } from './custody-b.js';
import { createCustodyCAdapter } from './custody-c.js';
import { createCustodyDAdapter } from './custody-d.js';
import type { VendorAdapterDeps } from './vendor-common.js';

export { CUSTODY_CONFIG_SCHEMAS };

/** What a stored config contributes to its adapter: the opened credentials and the wallet set. */
export interface CustodySettings {
  providerType: CustodyProviderType;
  config: CustodyConfig;
  walletSetId: string | null;
}

/** The adapter of a custody vendor for one stored config (its credentials already opened and checked). */
export function createCustodyAdapter(settings: CustodySettings, deps: VendorAdapterDeps): WalletProviderAdapter {
  switch (settings.providerType) {
    case 'CUSTODY_A':
      return createCustodyAAdapter(settings.config as CustodyConfig<'CUSTODY_A'>, settings.walletSetId, deps);
    case 'CUSTODY_B':
      return createCustodyBAdapter(settings.config as CustodyConfig<'CUSTODY_B'>, deps);
    case 'CUSTODY_C':
      return createCustodyCAdapter(settings.config as CustodyConfig<'CUSTODY_C'>, deps);
    case 'CUSTODY_D':
      return createCustodyDAdapter(settings.config as CustodyConfig<'CUSTODY_D'>, deps);
  }
}
