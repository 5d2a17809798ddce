import type { FieldError, IntegrationKey } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type Dispatcher, request } from 'undici';
import type { Config } from './catalog.js';

/**
 * What a provider said about a config: it accepted it, it refused named fields (the tenant's
 * mistake), or it gave no usable answer (time-out, error, nonsense: try again later).
 */
export type ProviderVerdict =
  | { outcome: 'passed' }
  | { outcome: 'refused'; errors: FieldError[] }
  | { outcome: 'unreachable'; reason: string };

/** The adapter of a kind that calls a provider: checks a whole, schema-valid config. */
export interface IntegrationProvider {
  check: (config: Config) => Promise<ProviderVerdict>;
}

export type IntegrationProviders = Partial<Record<IntegrationKey, IntegrationProvider>>;

export interface ProviderDeps {
  timeoutMs: number;
  logger: Logger;
  /** For proxies; undici's global dispatcher otherwise. */
  dispatcher?: Dispatcher | undefined;
}

/** Largest provider answer read; anything bigger is a malformed answer. */
const MAX_BODY_BYTES = 256 * 1024;

interface Answer {
  status: number;
  json: unknown;
}

/**
 * One HTTP call to a provider: a deadline on the whole exchange, no redirects (credentials never
 * follow one), a capped answer. Failures come back as a reason without the URL (it may hold a
 * secret path) and without the provider's text (it may echo what we sent).
 */
async function call(
  deps: ProviderDeps,
  url: string,
  options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown },
): Promise<Answer | { failure: string }> {
  const signal = AbortSignal.timeout(deps.timeoutMs);
  try {
    const res = await request(url, {
      method: options.method,
      headers: {
        accept: 'application/json',
        'user-agent': 'Holdfast-Integrations/1.0',
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal,
      headersTimeout: deps.timeoutMs,
      bodyTimeout: deps.timeoutMs,
      ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return { failure: 'the provider answered with more than 256 KiB' };
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json };
  } catch (error) {
    const e = error as { name?: string; code?: string };
    const timedOut = signal.aborted || e.name === 'TimeoutError' || /TIMEOUT/.test(e.code ?? '');
    return { failure: timedOut ? `the provider did not answer within ${deps.timeoutMs} ms` : 'the provider could not be reached' };
  }
}

function unreachable(deps: ProviderDeps, key: IntegrationKey, reason: string): ProviderVerdict {
  deps.logger.warn({ integration: key, reason }, 'integration provider check gave no usable answer');
  return { outcome: 'unreachable', reason };
}

const KycAccount = Type.Object({
  environment: Type.String(),
  levels: Type.Array(Type.String()),
});

/**
 * The KYC provider: `GET {base}/v1/account` with the key as a bearer token answers the account's
 * environment and verification levels. A refused key, another environment or an unknown level
 * are the tenant's mistakes; anything else is an unusable answer.
 */
export function kycProvider(baseUrl: string, deps: ProviderDeps): IntegrationProvider {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    check: async (config) => {
      const answer = await call(deps, `${base}/v1/account`, {
        method: 'GET',
        headers: { authorization: `Bearer ${String(config.apiKey)}` },
      });
      if ('failure' in answer) return unreachable(deps, 'kyc-provider', answer.failure);
      if (answer.status === 401 || answer.status === 403) {
        return { outcome: 'refused', errors: [{ field: 'config.apiKey', reason: `was refused by the provider (HTTP ${answer.status})` }] };
      }
      if (answer.status !== 200) return unreachable(deps, 'kyc-provider', `the provider answered HTTP ${answer.status}`);
      if (!Value.Check(KycAccount, answer.json)) return unreachable(deps, 'kyc-provider', 'the provider answered something malformed');
      const errors: FieldError[] = [];
      if (answer.json.environment !== config.environment) {
        errors.push({ field: 'config.environment', reason: `does not match the key, which belongs to ${answer.json.environment}` });
      }
      if (!answer.json.levels.includes(String(config.levelName))) {
        errors.push({ field: 'config.levelName', reason: 'is not a verification level of this provider account' });
      }
      return errors.length > 0 ? { outcome: 'refused', errors } : { outcome: 'passed' };
    },
  };
}

export const CHAT_TEST_MESSAGE = 'Holdfast is connected to this channel. You can ignore this test message.';

/**
 * The chat notifier: posts one test message to `{base}/services/{webhookToken}` (an incoming
 * webhook). A 2xx passes; a token the chat provider does not know (401, 403, 404, 410) or a channel
 * it refuses (400) are the tenant's mistakes.
 */
export function chatNotifier(baseUrl: string, deps: ProviderDeps): IntegrationProvider {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    check: async (config) => {
      const body: Record<string, string> = { text: CHAT_TEST_MESSAGE };
      if (typeof config.channel === 'string') body.channel = config.channel;
      if (typeof config.username === 'string') body.username = config.username;
      const answer = await call(deps, `${base}/services/${String(config.webhookToken)}`, { method: 'POST', headers: {}, body });
      if ('failure' in answer) return unreachable(deps, 'chat-notifier', answer.failure);
      if (answer.status >= 200 && answer.status < 300) return { outcome: 'passed' };
      if ([401, 403, 404, 410].includes(answer.status)) {
        return {
          outcome: 'refused',
          errors: [{ field: 'config.webhookToken', reason: `was refused by the chat provider (HTTP ${answer.status})` }],
        };
      }
      if (answer.status === 400) {
        const field = typeof config.channel === 'string' ? 'config.channel' : 'config';
        return { outcome: 'refused', errors: [{ field, reason: 'was refused by the chat provider (HTTP 400)' }] };
      }
      return unreachable(deps, 'chat-notifier', `the provider answered HTTP ${answer.status}`);
    },
  };
}

/** The adapters of the kinds whose provider this deployment has a URL for. */
export function createIntegrationProviders(urls: Partial<Record<IntegrationKey, string>>, deps: ProviderDeps): IntegrationProviders {
  const providers: IntegrationProviders = {};
  if (urls['kyc-provider']) providers['kyc-provider'] = kycProvider(urls['kyc-provider'], deps);
  if (urls['chat-notifier']) providers['chat-notifier'] = chatNotifier(urls['chat-notifier'], deps);
  return providers;
}
