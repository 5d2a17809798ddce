import { isIP } from 'node:net';
import { type AppEnv, StringEnum } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';
import { parseDuration, parseDurationList } from './durations.js';

/** Variables every Holdfast process reads (operator contract, "Processes, ports, environment"). */
export const CommonEnv = {
  APP_ENV: StringEnum(['local', 'staging', 'production'], { default: 'local', description: 'must be local, staging or production' }),
  DATABASE_URL: Type.String({
    format: 'postgres-url',
    default: 'postgres://postgres@127.0.0.1:5432/holdfast',
    errorMessage: 'must be a postgres:// or postgresql:// URL with a host',
  }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10, errorMessage: 'must be an integer from 1 to 200' }),
  NATS_URL: Type.String({
    format: 'nats-url',
    default: 'nats://127.0.0.1:4222',
    errorMessage: 'must be one or more nats:// URLs, comma-separated',
  }),
  NATS_SUBJECT_PREFIX: Type.String({
    pattern: '^([a-zA-Z0-9_-]+\\.)?$',
    default: '',
    errorMessage: 'must be empty or a token followed by a dot, like "staging."',
  }),
  NATS_STREAM_REPLICAS: Type.Integer({
    minimum: 1,
    maximum: 5,
    default: 1,
    errorMessage: 'must be 1 (one server) or the copies of each stream in a NATS cluster, 3 or 5',
  }),
  NATS_USER: Type.Optional(Type.String({ minLength: 1, errorMessage: "must be the process's NATS user name" })),
  NATS_PASSWORD: Type.Optional(Type.String({ minLength: 1, errorMessage: "must be the NATS user's password" })),
  NATS_NKEY_SEED: Type.Optional(
    Type.String({ pattern: '^SU[A-Z2-7]{56}$', errorMessage: 'must be an nkey user seed (SU followed by 56 base32 characters)' }),
  ),
  NATS_TLS_CA: Type.Optional(
    Type.String({ minLength: 1, errorMessage: "must be the path of the CA file that signed the NATS server's certificate" }),
  ),
  NATS_TLS_CERT: Type.Optional(
    Type.String({ minLength: 1, errorMessage: "must be the path of this process's client certificate for NATS" }),
  ),
  NATS_TLS_KEY: Type.Optional(Type.String({ minLength: 1, errorMessage: 'must be the path of the key of NATS_TLS_CERT' })),
  /** Unset: 127.0.0.1 in local (a developer's stack is not on the network), 0.0.0.0 elsewhere (listenHostOf). */
  HOST: Type.Optional(Type.String({ minLength: 1, errorMessage: 'must be an interface address such as 0.0.0.0 or 127.0.0.1' })),
  /**
   * Serve `/metrics` on this port only (an internal port, not the API's: the metrics name routes,
   * tenants' traffic and internal state); unset, on the API's port (docs/operations.md).
   */
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, errorMessage: 'must be a TCP port from 0 to 65535' })),
  /** Serve `/docs` and `/openapi.json`; unset: yes, except in production. */
  API_DOCS: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'must be fatal, error, warn, info, debug, trace or silent',
  }),
  SHUTDOWN_TIMEOUT: Type.String({ format: 'duration', default: '10s', errorMessage: 'must be a duration such as 10s' }),
  // Tracing (docs/operations.md, "Tracing"): off unless an OTLP endpoint is set. The standard
  // OpenTelemetry names, read here like every other setting and handed to the SDK explicitly.
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({ format: 'http-url', errorMessage: 'must be the http(s) URL of an OTLP/HTTP collector, e.g. http://otel-collector:4318' }),
  ),
  OTEL_EXPORTER_OTLP_HEADERS: Type.Optional(
    Type.String({ format: 'header-list', errorMessage: 'must be name=value pairs, comma-separated (e.g. authorization=Bearer abc)' }),
  ),
  OTEL_TRACES_SAMPLER_ARG: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 1,
    errorMessage: 'must be a fraction from 0 to 1 (share of new traces recorded)',
  }),
};

/** `name=value,name=value` (OTEL_EXPORTER_OTLP_HEADERS) as a header object. */
export function parseHeaderList(value: string | undefined): Record<string, string> {
  if (!value) return {};
  return Object.fromEntries(
    value.split(',').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())];
    }),
  );
}

export function portField(defaultPort: number) {
  return Type.Integer({ minimum: 0, maximum: 65535, default: defaultPort, errorMessage: 'must be a TCP port from 0 to 65535' });
}

export const ChainEnv = {
  CHAIN_RPC_URLS: Type.Optional(
    Type.String({
      format: 'chain-rpc-urls',
      errorMessage: 'must be network=url pairs, comma-separated, e.g. base-sepolia=http://127.0.0.1:8545',
    }),
  ),
};

/**
 * Where the chain-indexer subscribes to new heads (`eth_subscribe newHeads`), per network: a
 * network not listed uses its CHAIN_RPC_URLS address with ws:// or wss:// (anvil and most providers
 * serve both on one address); `off` polls only.
 */
export const ChainWsEnv = {
  CHAIN_WS_URLS: Type.Optional(
    Type.String({
      format: 'chain-ws-urls',
      errorMessage: 'must be network=url pairs (ws:// or wss://, or off), comma-separated, e.g. base=wss://rpc.example/ws',
    }),
  ),
};

/**
 * The new-heads subscription address of each network of `rpcUrls`: its CHAIN_WS_URLS entry, else
 * its RPC address as ws:// or wss://; undefined when the entry is `off`.
 */
export function chainWsUrls(value: string | undefined, rpcUrls: Record<string, string>): Record<string, string | undefined> {
  const given: Record<string, string> = value
    ? Object.fromEntries(value.split(',').map((pair) => pair.split('=') as [string, string]))
    : {};
  return Object.fromEntries(
    Object.entries(rpcUrls).map(([network, rpcUrl]) => {
      const url = given[network] ?? rpcUrl.replace(/^http(s?):/, 'ws$1:');
      return [network, url === 'off' ? undefined : url];
    }),
  );
}

/** The local chain stands in for base-sepolia in `local` when no RPC is configured. */
export const LOCAL_CHAIN_RPC = 'http://127.0.0.1:8545';

export function parseChainRpcUrls(value: string | undefined, appEnv: AppEnv): Record<string, string> {
  if (!value) return appEnv === 'local' ? { 'base-sepolia': LOCAL_CHAIN_RPC } : {};
  return Object.fromEntries(value.split(',').map((pair) => pair.split('=') as [string, string]));
}

export function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new Error(`not a duration: ${text}`);
  return ms;
}

export function durationListMs(text: string): number[] {
  const list = parseDurationList(text);
  if (!list) throw new Error(`not a duration list: ${text}`);
  return list;
}

/** For `refine`: names the variables that must be set outside `local`. */
export function requiredOutsideLocal(config: { APP_ENV: AppEnv } & Record<string, unknown>, names: string[]): string[] {
  if (config.APP_ENV === 'local') return [];
  return names
    .filter((n) => config[n] === undefined || config[n] === '')
    .map((n) => `${n}: is required when APP_ENV is ${config.APP_ENV} (missing)`);
}

/** AES-256-GCM key for secrets at rest (base64 of 32 bytes). Required outside local. */
export const DataEncryptionKeyField = Type.Optional(
  Type.String({ format: 'base64-32', errorMessage: 'must be base64 of exactly 32 bytes (openssl rand -base64 32)' }),
);

/**
 * Keys that sealed values before the current DATA_ENCRYPTION_KEY (comma-separated, base64 of 32
 * bytes each): they still open old values, never seal new ones (docs/operations.md, rotating it).
 */
export const DataEncryptionPreviousKeysField = Type.Optional(
  Type.String({ format: 'base64-32-list', errorMessage: 'must be comma-separated base64 keys of exactly 32 bytes each' }),
);

/** The `X-Internal-API-Key` for service-to-service HTTP calls. Required outside local. */
export const InternalApiKeyField = Type.Optional(Type.String({ minLength: 16, errorMessage: 'must be at least 16 characters' }));

export const HttpBodyLimitField = Type.Integer({
  minimum: 1024,
  maximum: 10 * 1024 * 1024,
  default: 1024 * 1024,
  errorMessage: 'must be a byte count from 1024 to 10485760',
});

/**
 * Requests per minute per credential for each rate-limit tier (operator contract), and the Redis
 * where the instances add up their counts (ADR 25; required outside local, see the services'
 * config: without it every instance would allow the whole limit on its own).
 */
export const RateLimitEnv = {
  REDIS_URL: Type.Optional(
    Type.String({ format: 'redis-url', errorMessage: 'must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379' }),
  ),
  RATE_LIMIT_PUBLIC: Type.Integer({ minimum: 1, default: 20, errorMessage: 'must be a positive integer (requests per minute)' }),
  RATE_LIMIT_STANDARD: Type.Integer({ minimum: 1, default: 100, errorMessage: 'must be a positive integer (requests per minute)' }),
  RATE_LIMIT_HIGH: Type.Integer({ minimum: 1, default: 1000, errorMessage: 'must be a positive integer (requests per minute)' }),
  RATE_LIMIT_ADMIN: Type.Integer({ minimum: 1, default: 50, errorMessage: 'must be a positive integer (requests per minute)' }),
};

export function rateLimitsPerMinute(config: {
  RATE_LIMIT_PUBLIC: number;
  RATE_LIMIT_STANDARD: number;
  RATE_LIMIT_HIGH: number;
  RATE_LIMIT_ADMIN: number;
}) {
  return {
    public: config.RATE_LIMIT_PUBLIC,
    standard: config.RATE_LIMIT_STANDARD,
    high: config.RATE_LIMIT_HIGH,
    admin: config.RATE_LIMIT_ADMIN,
  };
}

/**
 * Which hops in front of an HTTP process may set X-Forwarded-For (Fastify's trustProxy): a count
 * of proxies (`1`: one load balancer) or their addresses and CIDRs, comma-separated (also
 * `loopback`, `linklocal`, `uniquelocal`). Unset: the TCP peer is the client. `true` (trust any
 * hop) is refused: a client could then pick its own address and escape the per-address limits.
 */
export const TrustProxyEnv = {
  TRUST_PROXY: Type.Optional(
    Type.String({ minLength: 1, errorMessage: 'must be a number of proxy hops or a comma-separated list of proxy addresses or CIDRs' }),
  ),
};

const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export function parseTrustProxy(value: string | undefined): { value: false | number | string[]; problems: string[] } {
  if (value === undefined || value === 'false') return { value: false, problems: [] };
  if (/^\d{1,2}$/.test(value)) return { value: Number(value), problems: [] };
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.filter((entry) => {
    if (TRUST_PROXY_NAMES.has(entry)) return false;
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || rest.length > 0) return true;
    return bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  });
  if (bad.length > 0) {
    return {
      value: false,
      problems: [
        `TRUST_PROXY: must be a number of proxy hops or proxy addresses/CIDRs (or loopback, linklocal, uniquelocal), comma-separated; "true" is refused (got "${value}")`,
      ],
    };
  }
  return { value: entries, problems: [] };
}

/**
 * For `refine` (every process): NATS credentials come whole (a user with its password, or an nkey
 * seed), a client certificate with its key. In production a process without credentials refuses to
 * start: connecting anonymously would either fail at the server (infra/nats refuses it) or, on a
 * server left without authorization, run with every permission.
 */
export function natsCredentialProblems(config: {
  APP_ENV?: string | undefined;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_NKEY_SEED?: string | undefined;
  NATS_TLS_CERT?: string | undefined;
  NATS_TLS_KEY?: string | undefined;
}): string[] {
  const problems: string[] = [];
  if (config.APP_ENV === 'production' && !config.NATS_USER && !config.NATS_PASSWORD && !config.NATS_NKEY_SEED)
    problems.push("NATS_USER: production needs this process's own NATS user: NATS_USER and NATS_PASSWORD, or NATS_NKEY_SEED (missing)");
  if (config.NATS_USER && !config.NATS_PASSWORD) problems.push('NATS_PASSWORD: is required with NATS_USER (missing)');
  if (config.NATS_PASSWORD && !config.NATS_USER) problems.push('NATS_USER: is required with NATS_PASSWORD (missing)');
  if (config.NATS_NKEY_SEED && config.NATS_USER)
    problems.push('NATS_NKEY_SEED: set either NATS_USER and NATS_PASSWORD or NATS_NKEY_SEED, not both');
  if (config.NATS_TLS_CERT && !config.NATS_TLS_KEY) problems.push('NATS_TLS_KEY: is required with NATS_TLS_CERT (missing)');
  if (config.NATS_TLS_KEY && !config.NATS_TLS_CERT) problems.push('NATS_TLS_CERT: is required with NATS_TLS_KEY (missing)');
  return problems;
}

/** The interface a process listens on: HOST, else 127.0.0.1 in local and 0.0.0.0 elsewhere. */
export function listenHostOf(config: { APP_ENV: AppEnv; HOST?: string | undefined }): string {
  return config.HOST ?? (config.APP_ENV === 'local' ? '127.0.0.1' : '0.0.0.0');
}

/** Whether `/docs` and `/openapi.json` are served: API_DOCS, else everywhere but production. */
export function apiDocsOf(config: { APP_ENV: AppEnv; API_DOCS?: boolean | undefined }): boolean {
  return config.API_DOCS ?? config.APP_ENV !== 'production';
}
