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
import { API_KEY_PATTERN, MAX_BATCH_LEGS_CEILING, MAX_BATCH_LEGS_DEFAULT } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';

export const SERVICE_NAME = 'payments-service';
/** Where `./scripts/start` serves the Workspace API. */
const LOCAL_WORKSPACE_API_URL = 'http://127.0.0.1:3002';

export const PaymentsEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  ...RateLimitEnv,
  PAYMENTS_PORT: portField(3001),
  PAYMENTS_BOOTSTRAP_API_KEY: Type.Optional(
    Type.String({
      pattern: API_KEY_PATTERN,
      errorMessage: 'must be hf_test_ (hf_live_ in production) followed by at least 32 letters, digits, - or _',
    }),
  ),
  PAYMENTS_PUBLIC_URL: Type.Optional(
    Type.String({ format: 'http-url', errorMessage: 'must be the http(s) URL clients reach the Payments API at, without a path' }),
  ),
  PAYMENTS_WORKSPACE_API_URL: Type.Optional(
    Type.String({
      format: 'http-url',
      errorMessage: 'must be the http(s) URL clients reach the Workspace API at, without a path',
    }),
  ),
  INTERNAL_API_KEY: InternalApiKeyField,
  PAYMENTS_V1_SUNSET_ENFORCED: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
  HTTP_BODY_LIMIT: HttpBodyLimitField,
  PAYMENTS_MAX_BATCH_LEGS: Type.Integer({
    minimum: 1,
    maximum: MAX_BATCH_LEGS_CEILING,
    default: MAX_BATCH_LEGS_DEFAULT,
    errorMessage: `must be an integer from 1 to ${MAX_BATCH_LEGS_CEILING} (legs per batch)`,
  }),
});

export type PaymentsConfig = ReturnType<typeof resolve>;

function resolve(env: Record<string, string | undefined>) {
  const raw = loadConfig(PaymentsEnv, env, (c) => [
    ...requiredOutsideLocal(c, ['INTERNAL_API_KEY']),
    ...bootstrapKeyProblems(c.PAYMENTS_BOOTSTRAP_API_KEY, c.APP_ENV),
  ]);
  return {
    ...raw,
    chainRpcUrls: parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV),
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
    rateLimitsPerMinute: rateLimitsPerMinute(raw),
    v1SunsetEnforced: raw.PAYMENTS_V1_SUNSET_ENFORCED ?? raw.APP_ENV === 'production',
    publicUrl: raw.PAYMENTS_PUBLIC_URL?.replace(/\/+$/, ''),
    /** Named in the v1 webhook answers' `Link` (the Workspace API equivalent); the local stack's in `local`. */
    workspaceApiUrl: (raw.PAYMENTS_WORKSPACE_API_URL ?? (raw.APP_ENV === 'local' ? LOCAL_WORKSPACE_API_URL : undefined))?.replace(
      /\/+$/,
      '',
    ),
  };
}

/** A bootstrap key must be of its environment: hf_live_ in production, hf_test_ elsewhere. */
function bootstrapKeyProblems(key: string | undefined, appEnv: string): string[] {
  if (!key) return [];
  const prefix = appEnv === 'production' ? 'hf_live_' : 'hf_test_';
  return key.startsWith(prefix)
    ? []
    : [`PAYMENTS_BOOTSTRAP_API_KEY: must start with ${prefix} when APP_ENV is ${appEnv} (got a value (hidden))`];
}

/** Validates an environment (tests pass their own). */
export function paymentsConfigFrom(env: Record<string, string | undefined>): PaymentsConfig {
  return resolve(env);
}

/** The only place payments-service reads process.env: a .env file under the real environment. */
export function loadPaymentsConfig(): PaymentsConfig {
  return exitOnConfigError(() => resolve(withDotEnv(process.env)), SERVICE_NAME);
}
