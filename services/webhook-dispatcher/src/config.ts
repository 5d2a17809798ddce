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

/** The dispatcher's drain when SHUTDOWN_TIMEOUT is unset: the longest attempt plus time to close. */
const SHUTDOWN_MARGIN_MS = 5_000;

/**
 * A drain shorter than an attempt cuts it, and a cut attempt is sent again once its claim expires
 * (the receiver sees it twice). So SHUTDOWN_TIMEOUT, when set, must exceed WEBHOOK_TIMEOUT_MS; unset,
 * it is WEBHOOK_TIMEOUT_MS + 5 s rather than the 10 s of the other processes.
 */
function shutdownProblems(env: Record<string, string | undefined>, c: { SHUTDOWN_TIMEOUT: string; WEBHOOK_TIMEOUT_MS: number }) {
  if (!env.SHUTDOWN_TIMEOUT || durationMs(c.SHUTDOWN_TIMEOUT) > c.WEBHOOK_TIMEOUT_MS) return [];
  return [
    `SHUTDOWN_TIMEOUT: must be longer than WEBHOOK_TIMEOUT_MS (${c.WEBHOOK_TIMEOUT_MS} ms), or an attempt cut by a shutdown is sent again (got "${c.SHUTDOWN_TIMEOUT}")`,
  ];
}

function resolve(env: Record<string, string | undefined>) {
  const raw = loadConfig(DispatcherEnv, env, (c) => [
    ...requiredOutsideLocal(c, ['DATA_ENCRYPTION_KEY']),
    ...natsCredentialProblems(c),
    ...shutdownProblems(env, c),
  ]);
  return {
    ...raw,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT ? durationMs(raw.SHUTDOWN_TIMEOUT) : raw.WEBHOOK_TIMEOUT_MS + SHUTDOWN_MARGIN_MS,
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
