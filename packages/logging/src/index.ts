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

const CENSOR = '[redacted]';
const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS);
const SECRET_HEADER_SET: ReadonlySet<string> = new Set(SECRET_HEADERS);
/** The log object's own keys are level 1; a secret key is redacted down to level 4. */
const REDACTED_LEVELS = 4;

/**
 * Where a key sits for the header rule: secret header names are redacted under the top-level
 * `headers` and `requestHeaders`, and under `req.headers` and `res.headers`.
 */
type HeaderPlace = 'none' | 'message' | 'headers';

function headerPlaceOf(level: number, key: string, place: HeaderPlace): HeaderPlace {
  if (level === 1) return key === 'headers' || key === 'requestHeaders' ? 'headers' : key === 'req' || key === 'res' ? 'message' : 'none';
  return level === 2 && place === 'message' && key === 'headers' ? 'headers' : 'none';
}

/** A copy of `value` (arrays, plain objects, errors and other instances alike: same prototype and properties). */
function copyOf(value: object): Record<string, unknown> {
  if (Array.isArray(value)) return value.slice() as unknown as Record<string, unknown>;
  const copy = Object.defineProperties(Object.create(Object.getPrototypeOf(value)), Object.getOwnPropertyDescriptors(value));
  // An error's `stack` is an accessor that reads the original error only.
  if (value instanceof Error) Object.defineProperty(copy, 'stack', { value: value.stack, writable: true, configurable: true });
  return copy;
}

/**
 * `value` (an object whose keys are at `level`) with every secret replaced by "[redacted]": the
 * values of SECRET_KEYS at levels 1 to 4 and of the secret headers. It copies only the objects on
 * the way to a secret and answers `value` itself when there is none, which is nearly every line:
 * this runs for every line and every child logger's bindings (pino's own `redact`, given these
 * paths as wildcards, cost about 20 µs a binding and 90 µs a request's line).
 */
function redacted<T>(value: T, level = 1, place: HeaderPlace = 'none'): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  let copy: Record<string, unknown> | undefined;
  const holder = value as Record<string, unknown>;
  for (const key of Object.keys(holder)) {
    const child = holder[key];
    let next = child;
    if (SECRET_KEY_SET.has(key) || (place === 'headers' && SECRET_HEADER_SET.has(key))) next = CENSOR;
    else if (level < REDACTED_LEVELS) next = redacted(child, level + 1, headerPlaceOf(level, key, place));
    if (next !== child) {
      copy ??= copyOf(holder);
      Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
  }
  return (copy ?? value) as T;
}

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
    // Secrets are redacted here rather than by pino's `redact`: the line's object (with the mixin's
    // fields), the objects of a formatted message, and (below) every child logger's bindings.
    formatters: { level: (label) => ({ level: label }), log: (object) => redacted(object) },
    hooks: {
      logMethod(args, method) {
        // `log.info('… %j', value)`: the values after the message.
        const messageAt = args.findIndex((arg) => typeof arg === 'string');
        if (messageAt >= 0 && args.length > messageAt + 1) {
          for (let i = messageAt + 1; i < args.length; i += 1) args[i] = redacted(args[i]);
        }
        return method.apply(this, args as Parameters<typeof method>);
      },
    },
    mixin: activeTraceIds,
  };
  const logger = destination ? pino(options, destination) : pino(options);
  // Children inherit this from the root (pino makes each an Object.create of its parent). An empty
  // options object, as Fastify passes for every request's child, is dropped: pino then takes its
  // fast path instead of rebuilding the child's formatters.
  const child = logger.child;
  logger.child = function redactedChild(this: Logger, bindings, childOptions) {
    const own = childOptions && Object.keys(childOptions).length > 0 ? childOptions : undefined;
    return child.call(this, redacted(bindings), own) as never;
  } as Logger['child'];
  return logger;
}
