import {
  ChainEnv,
  CommonEnv,
  DataEncryptionKeyField,
  durationMs,
  exitOnConfigError,
  HttpBodyLimitField,
  InternalApiKeyField,
  loadConfig,
  parseChainRpcUrls,
  portField,
  RateLimitEnv,
  rateLimitsPerMinute,
  requiredOutsideLocal,
  withDotEnv,
} from '@holdfast/config';
import { Type } from '@sinclair/typebox';
import { resolveWalletSettings, WalletEnv } from './modules/wallets/settings.js';

export const SERVICE_NAME = 'workspace-service';

export const WorkspaceEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  ...RateLimitEnv,
  WORKSPACE_PORT: portField(3002),
  WORKSPACE_BOOTSTRAP_EMAIL: Type.Optional(Type.String({ format: 'email', errorMessage: 'must be an e-mail address' })),
  WORKSPACE_BOOTSTRAP_PASSWORD: Type.Optional(Type.String({ minLength: 12, errorMessage: 'must be at least 12 characters' })),
  INTERNAL_API_KEY: InternalApiKeyField,
  DATA_ENCRYPTION_KEY: DataEncryptionKeyField,
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32, errorMessage: 'must be at least 32 characters' })),
  WORKSPACE_UNVERSIONED_SUNSET_ENFORCED: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
  HTTP_BODY_LIMIT: HttpBodyLimitField,
  // Wallets, balances, wallet linking and contract deployments (modules/wallets/settings.ts).
  ...WalletEnv,
});

export type WorkspaceConfig = ReturnType<typeof resolve>;

function resolve(env: Record<string, string | undefined>) {
  const raw = loadConfig(WorkspaceEnv, env, (c) => [
    ...requiredOutsideLocal(c, ['INTERNAL_API_KEY', 'DATA_ENCRYPTION_KEY', 'JWT_SECRET']),
    ...requiredOutsideLocal(c, ['SIWE_DOMAIN']),
    ...(c.WORKSPACE_BOOTSTRAP_EMAIL && !c.WORKSPACE_BOOTSTRAP_PASSWORD
      ? ['WORKSPACE_BOOTSTRAP_PASSWORD: is required with WORKSPACE_BOOTSTRAP_EMAIL (missing)']
      : []),
  ]);
  return {
    ...raw,
    chainRpcUrls: parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV),
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
    rateLimitsPerMinute: rateLimitsPerMinute(raw),
    unversionedSunsetEnforced: raw.WORKSPACE_UNVERSIONED_SUNSET_ENFORCED ?? raw.APP_ENV === 'production',
    wallets: resolveWalletSettings(raw),
  };
}

/** Validates an environment (tests pass their own). */
export function workspaceConfigFrom(env: Record<string, string | undefined>): WorkspaceConfig {
  return resolve(env);
}

/** The only place workspace-service reads process.env: a .env file under the real environment. */
export function loadWorkspaceConfig(): WorkspaceConfig {
  return exitOnConfigError(() => resolve(withDotEnv(process.env)), SERVICE_NAME);
}
