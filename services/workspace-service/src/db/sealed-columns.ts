import type { SealedColumn } from '@holdfast/db';
import { secretsContext } from '../modules/integrations/service.js';
import { settingContext } from '../modules/settings/service.js';
import { rpcKeyContext } from '../modules/wallets/external/service.js';
import { configContext } from '../modules/wallets/provider-configs/service.js';
import { seedContext } from '../modules/wallets/providers/platform.js';

/** Every column of workspace-service holding values sealed under DATA_ENCRYPTION_KEY, and the context each is bound to. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'wallet_provider_configs', id: 'id', column: 'config_sealed', context: configContext },
  { table: 'platform_wallets', id: 'id', column: 'seed_sealed', context: seedContext },
  { table: 'external_wallet_configs', id: 'id', column: 'rpc_provider_api_key_sealed', context: rpcKeyContext },
  { table: 'settings', id: 'id', column: 'value', context: settingContext, onlyWhen: 'is_encrypted' },
  { table: 'workspace_integrations', id: 'id', column: 'secrets_sealed', context: secretsContext },
];
