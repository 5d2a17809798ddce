import { randomBytes } from 'node:crypto';
import {
  ChainEnv,
  CommonEnv,
  DataEncryptionKeyField,
  DataEncryptionPreviousKeysField,
  durationMs,
  exitOnConfigError,
  HttpBodyLimitField,
  InternalApiKeyField,
  loadConfig,
  natsCredentialProblems,
  parseChainRpcUrls,
  parseTrustProxy,
  portField,
  publicConstantProblems,
  RateLimitEnv,
  rateLimitsPerMinute,
  requireAppEnv,
  requiredOutsideLocal,
  TrustProxyEnv,
  withDotEnv,
} from '@holdfast/config';
import { StringEnum } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';
import { IntegrationEnv, integrationProblems, resolveIntegrationSettings } from './modules/integrations/settings.js';
import { resolveWalletSettings, WalletEnv, walletContractProblems } from './modules/wallets/common/settings.js';

export const SERVICE_NAME = 'workspace-service';

export const WorkspaceEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  ...RateLimitEnv,
  ...TrustProxyEnv,
  WORKSPACE_PORT: portField(3002),
  WORKSPACE_BOOTSTRAP_EMAIL: Type.Optional(Type.String({ format: 'email', errorMessage: 'must be an e-mail address' })),
  WORKSPACE_BOOTSTRAP_PASSWORD: Type.Optional(Type.String({ minLength: 12, errorMessage: 'must be at least 12 characters' })),
  INTERNAL_API_KEY: InternalApiKeyField,
  DATA_ENCRYPTION_KEY: DataEncryptionKeyField,
  DATA_ENCRYPTION_KEYS_PREVIOUS: DataEncryptionPreviousKeysField,
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32, errorMessage: 'must be at least 32 characters' })),
  WORKSPACE_UNVERSIONED_SUNSET_ENFORCED: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
  HTTP_BODY_LIMIT: HttpBodyLimitField,
  /** Lifetime of user and customer access tokens (the spec's 3600 s; shorter only to test expiry). */
  WORKSPACE_ACCESS_TOKEN_TTL: Type.String({ format: 'duration', default: '1h', errorMessage: 'must be a duration such as 1h' }),
  /**
   * How long an instance may keep the user or customer behind an access token between requests
   * (docs/adr/0030-workspace-principal-cache.md): a backstop only, changes reach every instance at
   * once by PostgreSQL NOTIFY. `0s` reads them from PostgreSQL on every request.
   */
  WORKSPACE_PRINCIPAL_CACHE_TTL: Type.String({ format: 'duration', default: '5s', errorMessage: 'must be a duration such as 5s' }),
  WORKSPACE_REFRESH_TOKEN_TTL: Type.String({ format: 'duration', default: '30d', errorMessage: 'must be a duration such as 30d' }),
  /** Retention (docs/operations.md, "Retention"): how often the sweeper runs and how long dead rows are kept. */
  WORKSPACE_RETENTION_INTERVAL: Type.String({ format: 'duration', default: '1h', errorMessage: 'must be a duration such as 1h' }),
  WORKSPACE_REFRESH_TOKEN_RETENTION: Type.String({ format: 'duration', default: '7d', errorMessage: 'must be a duration such as 7d' }),
  WORKSPACE_NONCE_RETENTION: Type.String({ format: 'duration', default: '1d', errorMessage: 'must be a duration such as 1d' }),
  WORKSPACE_STORAGE_DIR: Type.String({ minLength: 1, default: '.holdfast/storage', errorMessage: 'must be a directory path' }),
  MAILER_TRANSPORT: StringEnum(['log', 'http'], { default: 'log', description: 'must be log or http' }),
  MAILER_HTTP_URL: Type.Optional(Type.String({ format: 'http-url', errorMessage: 'must be an http:// or https:// URL' })),
  MAILER_API_KEY: Type.Optional(Type.String({ minLength: 8, errorMessage: 'must be at least 8 characters' })),
  MAILER_FROM: Type.String({ minLength: 3, default: 'Holdfast <no-reply@holdfast.local>', errorMessage: 'must be a sender address' }),
  // Wallets, balances, wallet linking and contract deployments (modules/wallets/settings.ts).
  ...WalletEnv,
  // Integration providers (modules/integrations/settings.ts).
  ...IntegrationEnv,
});

export type WorkspaceConfig = ReturnType<typeof resolve>;

function resolve(env: Record<string, string | undefined>) {
  const raw = loadConfig(WorkspaceEnv, env, (c) => [
    ...requiredOutsideLocal(c, ['INTERNAL_API_KEY', 'DATA_ENCRYPTION_KEY', 'JWT_SECRET']),
    ...requiredOutsideLocal(c, ['SIWE_DOMAIN']),
    // Rate-limit counts are shared through Redis; without it each instance would allow the whole limit.
    ...requiredOutsideLocal(c, ['REDIS_URL']),
    ...walletContractProblems(c),
    ...parseTrustProxy(c.TRUST_PROXY).problems,
    ...natsCredentialProblems(c),
    ...publicConstantProblems(c, { privateKeys: ['CONTRACT_DEPLOYER_PRIVATE_KEY'] }),
    ...integrationProblems(c),
    ...(c.WORKSPACE_BOOTSTRAP_EMAIL && !c.WORKSPACE_BOOTSTRAP_PASSWORD
      ? ['WORKSPACE_BOOTSTRAP_PASSWORD: is required with WORKSPACE_BOOTSTRAP_EMAIL (missing)']
      : []),
    ...(c.APP_ENV === 'production' && c.MAILER_TRANSPORT !== 'http'
      ? [
          `MAILER_TRANSPORT: must be http when APP_ENV is production: verification codes are sent by e-mail only (got "${c.MAILER_TRANSPORT}")`,
        ]
      : []),
    ...(c.MAILER_TRANSPORT === 'http' ? requiredWith(c, 'MAILER_TRANSPORT=http', ['MAILER_HTTP_URL', 'MAILER_API_KEY']) : []),
  ]);
  // In `local` without JWT_SECRET: a random secret for this run (sessions end at restart; logged as a warning).
  const jwtSecret = raw.JWT_SECRET ?? randomBytes(48).toString('base64url');
  return {
    ...raw,
    chainRpcUrls: parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV),
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
    rateLimitsPerMinute: rateLimitsPerMinute(raw),
    trustProxy: parseTrustProxy(raw.TRUST_PROXY).value,
    unversionedSunsetEnforced: raw.WORKSPACE_UNVERSIONED_SUNSET_ENFORCED ?? raw.APP_ENV === 'production',
    jwtSecret,
    jwtSecretGenerated: raw.JWT_SECRET === undefined,
    accessTokenTtlSeconds: Math.max(1, Math.floor(durationMs(raw.WORKSPACE_ACCESS_TOKEN_TTL) / 1000)),
    refreshTokenTtlMs: durationMs(raw.WORKSPACE_REFRESH_TOKEN_TTL),
    principalCacheTtlMs: durationMs(raw.WORKSPACE_PRINCIPAL_CACHE_TTL),
    retention: {
      everyMs: durationMs(raw.WORKSPACE_RETENTION_INTERVAL),
      horizons: {
        refreshTokenSeconds: Math.floor(durationMs(raw.WORKSPACE_REFRESH_TOKEN_RETENTION) / 1000),
        nonceSeconds: Math.floor(durationMs(raw.WORKSPACE_NONCE_RETENTION) / 1000),
      },
    },
    mailer:
      raw.MAILER_TRANSPORT === 'http'
        ? { transport: 'http' as const, url: raw.MAILER_HTTP_URL!, apiKey: raw.MAILER_API_KEY!, from: raw.MAILER_FROM }
        : { transport: 'log' as const, from: raw.MAILER_FROM },
    wallets: resolveWalletSettings(raw),
    integrations: resolveIntegrationSettings(raw),
  };
}

function requiredWith(config: Record<string, unknown>, condition: string, names: string[]): string[] {
  return names.filter((n) => config[n] === undefined || config[n] === '').map((n) => `${n}: is required with ${condition} (missing)`);
}

/** Validates an environment (tests pass their own). */
export function workspaceConfigFrom(env: Record<string, string | undefined>): WorkspaceConfig {
  return resolve(env);
}

/** The only place workspace-service reads process.env: a .env file under the real environment. */
export function loadWorkspaceConfig(): WorkspaceConfig {
  return exitOnConfigError(() => resolve(requireAppEnv(withDotEnv(process.env))), SERVICE_NAME);
}
