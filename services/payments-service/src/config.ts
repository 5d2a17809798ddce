import {
  ChainConfirmationsEnv,
  ChainEnv,
  CommonEnv,
  DataEncryptionKeyField,
  DataEncryptionPreviousKeysField,
  durationMs,
  EscrowContractsEnv,
  exitOnConfigError,
  HttpBodyLimitField,
  InternalApiKeyField,
  loadConfig,
  natsCredentialProblems,
  PUBLIC_DEV_PRIVATE_KEYS,
  parseChainRpcUrls,
  parseConfirmations,
  parseEscrowContracts,
  parseTokenContracts,
  parseTrustProxy,
  portField,
  publicConstantProblems,
  RateLimitEnv,
  rateLimitsPerMinute,
  requireAppEnv,
  requiredOutsideLocal,
  TokenContractsEnv,
  TrustProxyEnv,
  withDotEnv,
} from '@holdfast/config';
import { API_KEY_PATTERN, MAX_BATCH_LEGS_CEILING, MAX_BATCH_LEGS_DEFAULT } from '@holdfast/contracts';
import { keyringFromConfig } from '@holdfast/secrets';
import { Type } from '@sinclair/typebox';

export const SERVICE_NAME = 'payments-service';
/** Where `./scripts/start` serves the Workspace API. */
const LOCAL_WORKSPACE_API_URL = 'http://127.0.0.1:3002';
/**
 * The identity provider's callback secret in `local` when none is set: a published, well-known
 * value, so that a developer can sign test callbacks (docs/api/compliance.md). Never used elsewhere.
 */
export const LOCAL_IDENTITY_PROVIDER_WEBHOOK_SECRET = 'local-identity-provider-webhook-secret-not-for-production';

export const PaymentsEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  ...RateLimitEnv,
  ...TrustProxyEnv,
  ...EscrowContractsEnv,
  ...TokenContractsEnv,
  ...ChainConfirmationsEnv,
  PAYMENTS_ATTESTER_PRIVATE_KEY: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{64}$',
      errorMessage: 'must be a private key: 0x and 64 hex digits (the attester of the escrows payments creates)',
    }),
  ),
  SETTLEMENT_POLL_INTERVAL: Type.String({ format: 'duration', default: '1s', errorMessage: 'must be a duration such as 1s' }),
  /** The relayer of one-signature funding (docs/checkout.md): its key per network, `network=0x…,network2=0x…`. */
  RELAYER_PRIVATE_KEYS: Type.Optional(
    Type.String({
      pattern: '^\\s*[a-z0-9-]+=0x[0-9a-fA-F]{64}\\s*(,\\s*[a-z0-9-]+=0x[0-9a-fA-F]{64}\\s*)*$',
      errorMessage: 'must be network=0x<64 hex digits>, comma-separated (the relayer key of each network)',
    }),
  ),
  /** The most gas (wei) the relayer spends for one platform in 24 hours; 0 = the relayer is off for every platform. */
  RELAYER_MAX_FEE_WEI_PER_PLATFORM_PER_DAY: Type.String({
    pattern: '^[0-9]{1,40}$',
    default: '50000000000000000',
    errorMessage: 'must be an amount of wei (an integer)',
  }),
  /** Below this balance (wei) the relayer of a network is not ready (/health/ready) and refuses new relays. */
  RELAYER_MIN_BALANCE_WEI: Type.String({
    pattern: '^[0-9]{1,40}$',
    default: '10000000000000000',
    errorMessage: 'must be an amount of wei',
  }),
  /** A relayed transaction without a receipt this long after it was sent is replaced (same nonce, fees +12.5% at least). */
  RELAYER_STUCK_AFTER: Type.String({ format: 'duration', default: '30s', errorMessage: 'must be a duration such as 30s' }),
  /** An authorization must stay valid at least this long after it is received (time to be mined). */
  RELAYER_VALIDITY_MARGIN: Type.String({ format: 'duration', default: '60s', errorMessage: 'must be a duration such as 60s' }),
  /** How often the relayer's worker looks for receipts of what it sent. */
  RELAYER_POLL_INTERVAL: Type.String({ format: 'duration', default: '1s', errorMessage: 'must be a duration such as 1s' }),
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
  IDENTITY_PROVIDER_URL: Type.Optional(
    Type.String({ format: 'http-url', errorMessage: "must be the http(s) URL of the identity provider's API" }),
  ),
  IDENTITY_PROVIDER_API_KEY: Type.Optional(Type.String({ minLength: 16, errorMessage: 'must be at least 16 characters' })),
  IDENTITY_PROVIDER_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 32, errorMessage: 'must be at least 32 characters' })),
  IDENTITY_PROVIDER_TIMEOUT: Type.String({ format: 'duration', default: '10s', errorMessage: 'must be a duration such as 10s' }),
  SMS_GATEWAY_URL: Type.Optional(
    Type.String({ format: 'http-url', errorMessage: "must be the http(s) URL of the SMS gateway's API (two_factor codes)" }),
  ),
  SMS_GATEWAY_API_KEY: Type.Optional(Type.String({ minLength: 16, errorMessage: 'must be at least 16 characters' })),
  SMS_VENDOR_URL: Type.Optional(
    Type.String({ format: 'http-url', errorMessage: "must be the http(s) URL of the SMS vendor's API (vendor_sms codes)" }),
  ),
  SMS_VENDOR_API_KEY: Type.Optional(Type.String({ minLength: 16, errorMessage: 'must be at least 16 characters' })),
  SMS_TIMEOUT: Type.String({ format: 'duration', default: '10s', errorMessage: 'must be a duration such as 10s' }),
  CONTROLS_CODE_TTL: Type.String({ format: 'duration', default: '10m', errorMessage: 'must be a duration such as 10m' }),
  /** How often the code delivery worker looks for codes to send (the codes outbox). */
  CONTROLS_CODE_DELIVERY_INTERVAL: Type.String({ format: 'duration', default: '250ms', errorMessage: 'must be a duration such as 250ms' }),
  /** The longest sleep of the checkout expiry worker (it wakes at the next session's expiry when sooner). */
  CHECKOUT_EXPIRY_INTERVAL: Type.String({ format: 'duration', default: '10s', errorMessage: 'must be a duration such as 10s' }),
  /** How long an x402 settle waits for its transfer's receipt before it answers settlement_pending (docs/x402.md). */
  X402_SETTLE_WAIT: Type.String({ format: 'duration', default: '15s', errorMessage: 'must be a duration such as 15s' }),
  /** Seals one-time codes until they are sent; in local a development key is derived when unset. */
  DATA_ENCRYPTION_KEY: DataEncryptionKeyField,
  DATA_ENCRYPTION_KEYS_PREVIOUS: DataEncryptionPreviousKeysField,
  CONTROLS_CODE_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 20, default: 5, errorMessage: 'must be an integer from 1 to 20' }),
  /** Hold period of an escrowed transaction (the sender may rescind until it ends); a template may set its own. */
  PAYMENTS_HOLD_PERIOD_SECONDS: Type.Integer({ minimum: 0, default: 7 * 24 * 3600, errorMessage: 'must be a number of seconds' }),
  /** Same sender, receiver, amount, currency and network within this window, without an idempotency key: 409. */
  PAYMENTS_DUPLICATE_WINDOW_SECONDS: Type.Integer({ minimum: 0, default: 60, errorMessage: 'must be a number of seconds (0 = off)' }),
  /**
   * Group commit (ADR 39): the most single creations sent to PostgreSQL as one statement (one
   * round trip, one commit), and the most idempotency-key lookups read by one; 1 = each alone.
   */
  PAYMENTS_CREATION_GROUP_MAX: Type.Integer({ minimum: 1, maximum: 1000, default: 32, errorMessage: 'must be an integer from 1 to 1000' }),
  /** How long the first creation (or key lookup) of a group waits for others, in ms (0: only those of the same event-loop turn). */
  PAYMENTS_CREATION_GROUP_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 0,
    errorMessage: 'must be a number of milliseconds',
  }),
  /** Operator contract: transaction creations per minute per fromAddress (batch legs count); 0 = off. */
  TX_RATE_LIMIT_PER_SENDER: Type.Integer({
    minimum: 0,
    maximum: 100_000,
    default: 10,
    errorMessage: 'must be an integer from 0 (off) to 100000 (creations per minute per sender)',
  }),
  /** The reconciler (docs/settlement.md, Reconciliation): how often it compares the books with the chain, how far back settled ones, and how long a repairable difference waits for its CHAIN event. */
  RECONCILIATION_INTERVAL: Type.String({ format: 'duration', default: '5m', errorMessage: 'must be a duration such as 5m' }),
  RECONCILIATION_LOOKBACK: Type.String({ format: 'duration', default: '7d', errorMessage: 'must be a duration such as 7d' }),
  RECONCILIATION_REPAIR_AFTER: Type.String({ format: 'duration', default: '10m', errorMessage: 'must be a duration such as 10m' }),
  /** GET /api/v2/events/stream: how often an idle stream gets a `: heartbeat` comment (keeps proxies from cutting it). */
  EVENT_STREAM_HEARTBEAT_INTERVAL: Type.String({ format: 'duration', default: '15s', errorMessage: 'must be a duration such as 15s' }),
  /** How long a fee quote can be used. */
  PAYMENTS_QUOTE_TTL_SECONDS: Type.Integer({ minimum: 1, default: 300, errorMessage: 'must be a positive number of seconds' }),
  /** Retention (docs/operations.md, "Retention"): how often the sweeper runs and how long dead rows are kept. */
  PAYMENTS_RETENTION_INTERVAL: Type.String({ format: 'duration', default: '1h', errorMessage: 'must be a duration such as 1h' }),
  PAYMENTS_TOKEN_RETENTION: Type.String({ format: 'duration', default: '7d', errorMessage: 'must be a duration such as 7d' }),
  PAYMENTS_QUOTE_RETENTION: Type.String({ format: 'duration', default: '1d', errorMessage: 'must be a duration such as 1d' }),
  PAYMENTS_CODE_DELIVERY_RETENTION: Type.String({ format: 'duration', default: '7d', errorMessage: 'must be a duration such as 7d' }),
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
    // DATA_ENCRYPTION_KEY seals one-time codes waiting to be sent (controls' code deliveries).
    ...requiredOutsideLocal(c, ['INTERNAL_API_KEY', 'DATA_ENCRYPTION_KEY']),
    ...requiredOutsideLocal(c, ['IDENTITY_PROVIDER_URL', 'IDENTITY_PROVIDER_API_KEY', 'IDENTITY_PROVIDER_WEBHOOK_SECRET']),
    // Rate-limit counts are shared through Redis; without it each instance would allow the whole limit.
    ...requiredOutsideLocal(c, ['REDIS_URL']),
    // The OAuth issuer and the hosted page's links: taken from a request's Host only in local,
    // where a forged Host cannot reach anyone else (docs/operations.md).
    ...requiredOutsideLocal(c, ['PAYMENTS_PUBLIC_URL']),
    ...(c.IDENTITY_PROVIDER_URL && !c.IDENTITY_PROVIDER_API_KEY
      ? ['IDENTITY_PROVIDER_API_KEY: is required with IDENTITY_PROVIDER_URL']
      : []),
    ...smsProblems(c, 'SMS_GATEWAY'),
    ...smsProblems(c, 'SMS_VENDOR'),
    ...bootstrapKeyProblems(c.PAYMENTS_BOOTSTRAP_API_KEY, c.APP_ENV),
    ...parseTrustProxy(c.TRUST_PROXY).problems,
    ...natsCredentialProblems(c),
    ...publicConstantProblems(c, {
      privateKeys: ['PAYMENTS_ATTESTER_PRIVATE_KEY'],
      publicValues: { IDENTITY_PROVIDER_WEBHOOK_SECRET: [LOCAL_IDENTITY_PROVIDER_WEBHOOK_SECRET] },
    }),
    ...relayerKeyProblems(c.APP_ENV, c.RELAYER_PRIVATE_KEYS),
    ...parseEscrowContracts(c.ESCROW_CONTRACTS).problems,
    ...parseTokenContracts(c.TOKEN_CONTRACTS).problems,
    ...parseConfirmations(c.CHAIN_CONFIRMATIONS).problems,
  ]);
  return {
    ...raw,
    chainRpcUrls: parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV),
    settlement: settlementSettings(raw),
    relayer: relayerSettings(raw),
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
    controlsCodeTtlMs: durationMs(raw.CONTROLS_CODE_TTL),
    eventStreamHeartbeatMs: Math.max(100, durationMs(raw.EVENT_STREAM_HEARTBEAT_INTERVAL)),
    codeDeliveryIntervalMs: durationMs(raw.CONTROLS_CODE_DELIVERY_INTERVAL),
    checkoutExpiryIntervalMs: Math.max(50, durationMs(raw.CHECKOUT_EXPIRY_INTERVAL)),
    x402SettleWaitMs: durationMs(raw.X402_SETTLE_WAIT),
    reconciliation: {
      everyMs: Math.max(1000, durationMs(raw.RECONCILIATION_INTERVAL)),
      lookbackSeconds: Math.floor(durationMs(raw.RECONCILIATION_LOOKBACK) / 1000),
      repairAfterMs: durationMs(raw.RECONCILIATION_REPAIR_AFTER),
    },
    // Required outside local (resolve refuses to start without it); null only for a config built
    // by hand without one, where controls that send a code answer 503.
    codeKeyring: raw.DATA_ENCRYPTION_KEY || raw.APP_ENV === 'local' ? keyringFromConfig(raw) : null,
    retention: {
      everyMs: durationMs(raw.PAYMENTS_RETENTION_INTERVAL),
      horizons: {
        tokenSeconds: Math.floor(durationMs(raw.PAYMENTS_TOKEN_RETENTION) / 1000),
        quoteSeconds: Math.floor(durationMs(raw.PAYMENTS_QUOTE_RETENTION) / 1000),
        codeDeliverySeconds: Math.floor(durationMs(raw.PAYMENTS_CODE_DELIVERY_RETENTION) / 1000),
      },
    },
    rateLimitsPerMinute: rateLimitsPerMinute(raw),
    trustProxy: parseTrustProxy(raw.TRUST_PROXY).value,
    v1SunsetEnforced: raw.PAYMENTS_V1_SUNSET_ENFORCED ?? raw.APP_ENV === 'production',
    publicUrl: raw.PAYMENTS_PUBLIC_URL?.replace(/\/+$/, ''),
    /** Named in the v1 webhook answers' `Link` (the Workspace API equivalent); the local stack's in `local`. */
    workspaceApiUrl: (raw.PAYMENTS_WORKSPACE_API_URL ?? (raw.APP_ENV === 'local' ? LOCAL_WORKSPACE_API_URL : undefined))?.replace(
      /\/+$/,
      '',
    ),
    /**
     * Compliance verifications: the identity provider's API (unset in `local`: the built-in local
     * stand-in) and the secret its callbacks are signed with.
     */
    identityProvider: {
      url: raw.IDENTITY_PROVIDER_URL?.replace(/\/+$/, ''),
      apiKey: raw.IDENTITY_PROVIDER_API_KEY,
      timeoutMs: durationMs(raw.IDENTITY_PROVIDER_TIMEOUT),
      webhookSecret:
        raw.IDENTITY_PROVIDER_WEBHOOK_SECRET ?? (raw.APP_ENV === 'local' ? LOCAL_IDENTITY_PROVIDER_WEBHOOK_SECRET : undefined) ?? '',
    },
    /**
     * Controls' SMS codes: the gateway of `two_factor` and the vendor of `vendor_sms` (the same
     * HTTP adapter, configured apart). Unset: the log gateway in `local`, a refusing one elsewhere.
     */
    sms: {
      gateway: { url: raw.SMS_GATEWAY_URL?.replace(/\/+$/, ''), apiKey: raw.SMS_GATEWAY_API_KEY, timeoutMs: durationMs(raw.SMS_TIMEOUT) },
      vendor: { url: raw.SMS_VENDOR_URL?.replace(/\/+$/, ''), apiKey: raw.SMS_VENDOR_API_KEY, timeoutMs: durationMs(raw.SMS_TIMEOUT) },
    },
  };
}

/**
 * An SMS API's URL and key go together; outside `local` and `staging` the URL must be https (the
 * webhook targets' scheme rule); never a user:password in it (the key is the bearer header).
 */
function smsProblems(c: Record<string, unknown> & { APP_ENV: string }, prefix: 'SMS_GATEWAY' | 'SMS_VENDOR'): string[] {
  const url = c[`${prefix}_URL`] as string | undefined;
  const apiKey = c[`${prefix}_API_KEY`] as string | undefined;
  const problems: string[] = [];
  if (url && !apiKey) problems.push(`${prefix}_API_KEY: is required with ${prefix}_URL`);
  if (apiKey && !url) problems.push(`${prefix}_URL: is required with ${prefix}_API_KEY`);
  if (url) {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (parsed && (parsed.username || parsed.password)) problems.push(`${prefix}_URL: must not contain a user name or password`);
    if (parsed && c.APP_ENV === 'production' && parsed.protocol !== 'https:') problems.push(`${prefix}_URL: must use https in production`);
  }
  return problems;
}

/**
 * The on-chain side of settlement: escrow and token contracts per network, the confirmations a
 * submitted hash needs, and the attester key
 * (in `local`, anvil dev account #7, which no other part of the stack signs with).
 */
function settlementSettings(raw: {
  APP_ENV: string;
  ESCROW_CONTRACTS?: string | undefined;
  TOKEN_CONTRACTS?: string | undefined;
  CHAIN_CONFIRMATIONS?: string | undefined;
  PAYMENTS_ATTESTER_PRIVATE_KEY?: string | undefined;
  SETTLEMENT_POLL_INTERVAL: string;
}) {
  return {
    escrowContracts: parseEscrowContracts(raw.ESCROW_CONTRACTS).value,
    tokenContracts: parseTokenContracts(raw.TOKEN_CONTRACTS).value,
    /** CHAIN_CONFIRMATIONS overrides: a submitted hash moves a transaction only this deep (`confirmationsFor`). */
    confirmations: parseConfirmations(raw.CHAIN_CONFIRMATIONS).value,
    attesterPrivateKey: (raw.PAYMENTS_ATTESTER_PRIVATE_KEY ?? (raw.APP_ENV === 'local' ? LOCAL_ATTESTER_KEY : undefined)) as
      | `0x${string}`
      | undefined,
    pollIntervalMs: durationMs(raw.SETTLEMENT_POLL_INTERVAL),
  };
}

/** anvil dev account #7 (0x14dC79964da2C08b23698B3D3cc7Ca32193d9955): the local attester. Never valid outside local chains. */
export const LOCAL_ATTESTER_KEY = '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356';

/** anvil dev account #6 (0x976EA74026E726554dB657fA54763abd0C3a0aa9): the local relayer. Nothing else in the stack signs with it. */
export const LOCAL_RELAYER_KEY = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e';

/** RELAYER_PRIVATE_KEYS as network -> key (later entries of a network win). */
function parseRelayerKeys(value: string | undefined): Record<string, `0x${string}`> {
  const keys: Record<string, `0x${string}`> = {};
  for (const entry of (value ?? '').split(',')) {
    const [network, key] = entry.trim().split('=');
    if (network && key) keys[network.trim()] = key.trim().toLowerCase() as `0x${string}`;
  }
  return keys;
}

/** In production a relayer key must be one of your own, as the attester's (a public dev key can be spent by anyone). */
function relayerKeyProblems(appEnv: string, value: string | undefined): string[] {
  if (appEnv !== 'production') return [];
  return Object.entries(parseRelayerKeys(value))
    .filter(([, key]) => PUBLIC_DEV_PRIVATE_KEYS.includes(key))
    .map(
      ([network]) =>
        `RELAYER_PRIVATE_KEYS: the key of ${network} is a public development key (anvil's default accounts); production needs a key of your own`,
    );
}

/**
 * The relayer (docs/checkout.md): a key per network (in `local`, anvil dev account #6 for every
 * network without one), its daily gas budget per platform, the balance it needs to be ready, when a
 * transaction counts as stuck, the validity an authorization must still have, and its poll.
 */
function relayerSettings(raw: {
  APP_ENV: string;
  RELAYER_PRIVATE_KEYS?: string | undefined;
  RELAYER_MAX_FEE_WEI_PER_PLATFORM_PER_DAY: string;
  RELAYER_MIN_BALANCE_WEI: string;
  RELAYER_STUCK_AFTER: string;
  RELAYER_VALIDITY_MARGIN: string;
  RELAYER_POLL_INTERVAL: string;
}) {
  return {
    keys: parseRelayerKeys(raw.RELAYER_PRIVATE_KEYS),
    /** The key of a network RELAYER_PRIVATE_KEYS does not name: #6 in `local`, none elsewhere. */
    defaultKey: (raw.APP_ENV === 'local' ? LOCAL_RELAYER_KEY : undefined) as `0x${string}` | undefined,
    maxFeeWeiPerPlatformPerDay: BigInt(raw.RELAYER_MAX_FEE_WEI_PER_PLATFORM_PER_DAY),
    minBalanceWei: BigInt(raw.RELAYER_MIN_BALANCE_WEI),
    stuckAfterMs: durationMs(raw.RELAYER_STUCK_AFTER),
    validityMarginSeconds: Math.ceil(durationMs(raw.RELAYER_VALIDITY_MARGIN) / 1000),
    pollIntervalMs: durationMs(raw.RELAYER_POLL_INTERVAL),
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
  return exitOnConfigError(() => resolve(requireAppEnv(withDotEnv(process.env))), SERVICE_NAME);
}

/**
 * The NATS setup's configuration (src/nats-setup.ts): NATS only, connecting as the setup's own NATS
 * user (NATS_USER=nats-setup and its password; production requires one), never the process's.
 */
const NatsSetupEnv = Type.Object({
  APP_ENV: CommonEnv.APP_ENV,
  NATS_URL: CommonEnv.NATS_URL,
  NATS_SUBJECT_PREFIX: CommonEnv.NATS_SUBJECT_PREFIX,
  NATS_STREAM_REPLICAS: CommonEnv.NATS_STREAM_REPLICAS,
  NATS_USER: CommonEnv.NATS_USER,
  NATS_PASSWORD: CommonEnv.NATS_PASSWORD,
  NATS_NKEY_SEED: CommonEnv.NATS_NKEY_SEED,
  NATS_TLS_CA: CommonEnv.NATS_TLS_CA,
  NATS_TLS_CERT: CommonEnv.NATS_TLS_CERT,
  NATS_TLS_KEY: CommonEnv.NATS_TLS_KEY,
  LOG_LEVEL: CommonEnv.LOG_LEVEL,
});

export function natsSetupConfigFrom(env: Record<string, string | undefined>) {
  return loadConfig(NatsSetupEnv, env, natsCredentialProblems);
}

export function loadNatsSetupConfig() {
  return exitOnConfigError(() => natsSetupConfigFrom(requireAppEnv(withDotEnv(process.env))), 'nats-setup');
}
