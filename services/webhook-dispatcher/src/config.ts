import {
  CommonEnv,
  DataEncryptionKeyField,
  DataEncryptionPreviousKeysField,
  durationListMs,
  durationMs,
  exitOnConfigError,
  loadConfig,
  natsCredentialProblems,
  portField,
  requireAppEnv,
  requiredOutsideLocal,
  withDotEnv,
} from '@holdfast/config';
import { Type } from '@sinclair/typebox';

export const SERVICE_NAME = 'webhook-dispatcher';

export const DispatcherEnv = Type.Object({
  ...CommonEnv,
  DISPATCHER_PORT: portField(3003),
  DATA_ENCRYPTION_KEY: DataEncryptionKeyField,
  DATA_ENCRYPTION_KEYS_PREVIOUS: DataEncryptionPreviousKeysField,
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    format: 'duration-list',
    default: '5s,5m,30m,2h,5h,10h,10h',
    errorMessage: 'must be comma-separated durations such as 5s,5m,30m,2h',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 30_000,
    errorMessage: 'must be milliseconds from 100 to 120000',
  }),
  WEBHOOK_CIRCUIT_THRESHOLD: Type.Integer({ minimum: 1, maximum: 1000, default: 10, errorMessage: 'must be an integer from 1 to 1000' }),
  WEBHOOK_CIRCUIT_COOLDOWN: Type.String({ format: 'duration', default: '60s', errorMessage: 'must be a duration such as 60s' }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 50,
    errorMessage: 'must be an integer from 1 to 1000 (attempts in flight per instance)',
  }),
  WEBHOOK_SUBSCRIPTION_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 10,
    errorMessage: 'must be an integer from 1 to 100 (attempts in flight per subscription, all instances together)',
  }),
});

export type DispatcherConfig = ReturnType<typeof resolve>;

function resolve(env: Record<string, string | undefined>) {
  const raw = loadConfig(DispatcherEnv, env, (c) => [...requiredOutsideLocal(c, ['DATA_ENCRYPTION_KEY']), ...natsCredentialProblems(c)]);
  return {
    ...raw,
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
    retryScheduleMs: durationListMs(raw.WEBHOOK_RETRY_SCHEDULE),
    circuitCooldownMs: durationMs(raw.WEBHOOK_CIRCUIT_COOLDOWN),
  };
}

/** Validates an environment (tests pass their own). */
export function dispatcherConfigFrom(env: Record<string, string | undefined>): DispatcherConfig {
  return resolve(env);
}

/** The only place webhook-dispatcher reads process.env: a .env file under the real environment. */
export function loadDispatcherConfig(): DispatcherConfig {
  return exitOnConfigError(() => resolve(requireAppEnv(withDotEnv(process.env))), SERVICE_NAME);
}
