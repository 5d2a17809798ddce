import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { activeTraceIds } from './trace.js';

export type { Logger } from 'pino';
export * from './trace.js';

/** Keys whose values never reach a log line, at any of the first four levels of nesting. */
export const SECRET_KEYS = [
  'password',
  'newPassword',
  'currentPassword',
  'secret',
  'clientSecret',
  'client_secret',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'apiKey',
  'api_key',
  'privateKey',
  'seed',
  'mnemonic',
  'verificationCode',
  'otp',
  'signature',
  'config',
  // Custody vendor credentials and sealed values (wallet provider configs, HD seeds).
  'apiSecret',
  'apiPrivateKey',
  'keySecret',
  'rpcProviderApiKey',
  'configSealed',
  'seedSealed',
] as const;

const SECRET_HEADERS = ['authorization', 'x-api-key', 'x-internal-api-key', 'cookie', 'set-cookie', 'proxy-authorization'];

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of SECRET_KEYS) {
    paths.push(key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`);
  }
  for (const header of SECRET_HEADERS) {
    paths.push(`req.headers["${header}"]`, `res.headers["${header}"]`, `headers["${header}"]`, `requestHeaders["${header}"]`);
  }
  return paths;
}

export const REDACT_PATHS = redactPaths();

export interface LoggerSettings {
  service: string;
  level: string;
  /** Where lines go; stdout when omitted. Tests pass a stream to read what was logged. */
  destination?: DestinationStream;
}

/**
 * JSON lines with `service`, ISO time and textual level, secrets replaced by "[redacted]", and the
 * `traceId`/`spanId` of the active span when tracing is on (docs/operations.md, "Tracing").
 */
export function createLogger({ service, level, destination }: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    mixin: activeTraceIds,
  };
  return destination ? pino(options, destination) : pino(options);
}
