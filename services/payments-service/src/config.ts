import {
  ChainEnv,
  CommonEnv,
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

export const SERVICE_NAME = 'payments-service';

export const PaymentsEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  ...RateLimitEnv,
  PAYMENTS_PORT: portField(3001),
  PAYMENTS_BOOTSTRAP_API_KEY: Type.Optional(Type.String({ minLength: 32, errorMessage: 'must be at least 32 characters' })),
  INTERNAL_API_KEY: InternalApiKeyField,
  PAYMENTS_V1_SUNSET_ENFORCED: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
  HTTP_BODY_LIMIT: HttpBodyLimitField,
});

export type PaymentsConfig = ReturnType<typeof resolve>;

function resolve(env: Record<string, string | undefined>) {
  const raw = loadConfig(PaymentsEnv, env, (c) => requiredOutsideLocal(c, ['INTERNAL_API_KEY']));
  return {
    ...raw,
    chainRpcUrls: parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV),
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
    rateLimitsPerMinute: rateLimitsPerMinute(raw),
    v1SunsetEnforced: raw.PAYMENTS_V1_SUNSET_ENFORCED ?? raw.APP_ENV === 'production',
  };
}

/** Validates an environment (tests pass their own). */
export function paymentsConfigFrom(env: Record<string, string | undefined>): PaymentsConfig {
  return resolve(env);
}

/** The only place payments-service reads process.env: a .env file under the real environment. */
export function loadPaymentsConfig(): PaymentsConfig {
  return exitOnConfigError(() => resolve(withDotEnv(process.env)), SERVICE_NAME);
}
