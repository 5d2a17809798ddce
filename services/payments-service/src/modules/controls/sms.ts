import { type AppEnv, AppError } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { type Dispatcher, request } from 'undici';

/** A one-time code to deliver by SMS for a transaction's control. */
export interface SmsMessage {
  /** E.164 phone number. */
  to: string;
  /** The whole text of the message (it contains the code). */
  text: string;
  /** The code alone, for gateways that template their own text. */
  code: string;
  transactionId: string;
  purpose: 'two_factor' | 'vendor_sms';
}

/**
 * The SMS gateway adapter: a third party (the vendor that delivers two-factor and vendor SMS
 * codes) behind one method. `send` resolves once the gateway accepted the message and rejects
 * with an AppError when it did not (the HTTP gateway: 502 `INTEGRATION_PROVIDER_ERROR`; no gateway
 * configured: 503 `UPSTREAM_UNAVAILABLE`); the creation that asked for the code then writes nothing.
 */
export interface SmsGateway {
  /** Recorded as the verification's `provider`. */
  readonly provider: string;
  /** false: every send would be refused (no gateway configured), so no code is promised at all. */
  readonly configured?: boolean;
  send(message: SmsMessage): Promise<{ messageId: string }>;
}

/** `+14155550123` -> `+1*******0123`: what rows, logs and answers keep of a phone number. */
export function maskPhone(phone: string): string {
  if (phone.length <= 6) return '*'.repeat(phone.length);
  return `${phone.slice(0, 2)}${'*'.repeat(phone.length - 6)}${phone.slice(-4)}`;
}

/**
 * The local gateway: nothing is sent, the code is written to the log at info (`smsCode`) so a
 * developer can type it. In production it never logs the code (a real gateway must be wired there).
 */
export function createLogSmsGateway(deps: { logger: Logger; appEnv: AppEnv; provider?: string }): SmsGateway {
  const { logger, appEnv } = deps;
  let sent = 0;
  return {
    provider: deps.provider ?? 'local-log',
    async send(message) {
      sent += 1;
      const messageId = `local-${Date.now()}-${sent}`;
      const line = { to: maskPhone(message.to), transactionId: message.transactionId, purpose: message.purpose, messageId };
      if (appEnv === 'production') logger.warn(line, 'SMS not sent: no SMS gateway is configured in production');
      else logger.info({ ...line, smsCode: message.code }, 'SMS code (local gateway: logged, not sent)');
      return { messageId };
    },
  };
}

/**
 * The gateway gave no usable answer: 502 INTEGRATION_PROVIDER_ERROR. `retryable` (in `details`
 * too) says whether trying again can help (time-out, unreachable, 5xx, 429, malformed answer) or
 * not (it refused the message or our key). `reason` never holds the phone number, the code or the
 * gateway's own text (it may echo what we sent).
 */
export class SmsGatewayError extends AppError {
  constructor(
    readonly provider: string,
    readonly retryable: boolean,
    reason: string,
  ) {
    super(
      'INTEGRATION_PROVIDER_ERROR',
      retryable ? 'The SMS gateway did not answer usably; try again' : 'The SMS gateway refused the verification code message',
      { provider, retryable, reason },
    );
  }
}

export interface HttpSmsGatewayOptions {
  /** Recorded as the verification's `provider` (e.g. `sms-gateway`, `sms-vendor`). */
  provider: string;
  /** The gateway's API base URL, without a trailing slash. */
  url: string;
  apiKey: string;
  /** Deadline of the whole exchange (connect, headers, body). */
  timeoutMs: number;
  /** Success and failure lines (masked number, never the code). */
  logger?: Logger | undefined;
  /** For a guarded or proxying dispatcher; undici's global dispatcher otherwise. */
  dispatcher?: Dispatcher | undefined;
}

/** Largest gateway answer read; anything bigger is a malformed answer. */
const MAX_ANSWER_BYTES = 64 * 1024;
const MESSAGE_ID = /^[A-Za-z0-9_.:-]{1,200}$/;
/** `status` values of an accepted message; `rejected` and `failed` are refusals. */
const ACCEPTED = new Set(['queued', 'accepted', 'sent', 'delivered']);
const REFUSED = new Set(['rejected', 'failed']);

/**
 * The HTTP SMS gateway (docs/controls.md, "SMS gateway adapters"): `POST {url}/messages` with
 * `Authorization: Bearer <apiKey>` and `{to, body, reference}` (reference = the transaction id),
 * answering 200/201/202 `{id, status}` with `status` `queued`, `accepted`, `sent` or `delivered`.
 * `status` `rejected`/`failed`, 401/403 and other 4xx are refusals; 5xx, 408, 429, time-outs,
 * unreachable and malformed answers are retryable. No redirects are followed.
 */
export function createHttpSmsGateway(options: HttpSmsGatewayOptions): SmsGateway {
  const { provider, logger } = options;
  const endpoint = `${options.url.replace(/\/+$/, '')}/messages`;
  const fail = (message: SmsMessage, retryable: boolean, reason: string): never => {
    logger?.warn(
      { provider, to: maskPhone(message.to), transactionId: message.transactionId, purpose: message.purpose, retryable, reason },
      'SMS gateway did not accept the message',
    );
    throw new SmsGatewayError(provider, retryable, reason);
  };
  return {
    provider,
    async send(message) {
      const signal = AbortSignal.timeout(options.timeoutMs);
      let status: number;
      let text: string | undefined;
      try {
        const res = await request(endpoint, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            'content-type': 'application/json',
            accept: 'application/json',
            'user-agent': 'Holdfast-Payments/1.0',
          },
          body: JSON.stringify({ to: message.to, body: message.text, reference: message.transactionId }),
          signal,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
        });
        status = res.statusCode;
        text = await readLimited(res.body);
      } catch (error) {
        const e = error as { name?: string; code?: string };
        const timedOut = signal.aborted || e.name === 'TimeoutError' || /TIMEOUT/.test(e.code ?? '');
        return fail(message, true, timedOut ? `no answer within ${options.timeoutMs} ms` : 'unreachable');
      }
      if (status === 408 || status === 429 || status >= 500) return fail(message, true, `status ${status}`);
      if (status !== 200 && status !== 201 && status !== 202) return fail(message, false, `status ${status}`);
      const answer = parseAnswer(text);
      if (!answer || typeof answer.id !== 'string' || !MESSAGE_ID.test(answer.id)) {
        return fail(message, true, 'malformed answer');
      }
      if (typeof answer.status === 'string' && REFUSED.has(answer.status)) return fail(message, false, `message ${answer.status}`);
      if (typeof answer.status !== 'string' || !ACCEPTED.has(answer.status)) return fail(message, true, 'malformed answer');
      logger?.info(
        { provider, to: maskPhone(message.to), transactionId: message.transactionId, purpose: message.purpose, messageId: answer.id },
        'SMS code sent',
      );
      return { messageId: answer.id };
    },
  };
}

function parseAnswer(text: string | undefined): { id?: unknown; status?: unknown } | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown; status?: unknown }) : null;
  } catch {
    return null;
  }
}

/** The body as text, or undefined when it is bigger than MAX_ANSWER_BYTES. */
async function readLimited(body: AsyncIterable<Buffer>): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Outside `local` without a configured gateway: every send is refused with 503
 * `UPSTREAM_UNAVAILABLE`, so a transaction with a two_factor / vendor_sms control fails at
 * creation (nothing written) instead of waiting for a code nobody received.
 */
export function createUnconfiguredSmsGateway(deps: { provider: string; setting: string }): SmsGateway {
  return {
    provider: deps.provider,
    configured: false,
    async send() {
      throw new AppError('UPSTREAM_UNAVAILABLE', `No SMS gateway is configured (${deps.setting}); the verification code cannot be sent`, {
        provider: deps.provider,
        configured: false,
      });
    },
  };
}

/** Where one gateway's settings come from (config.ts). */
export interface SmsGatewaySettings {
  url?: string | undefined;
  apiKey?: string | undefined;
  timeoutMs: number;
}

/**
 * The gateway for one purpose: the HTTP gateway when its URL is set; else in `local` the log
 * gateway, elsewhere the refusing one.
 */
export function smsGatewayFor(
  settings: SmsGatewaySettings,
  deps: { provider: string; localProvider: string; setting: string; appEnv: AppEnv; logger: Logger },
): SmsGateway {
  if (settings.url && settings.apiKey) {
    return createHttpSmsGateway({
      provider: deps.provider,
      url: settings.url,
      apiKey: settings.apiKey,
      timeoutMs: settings.timeoutMs,
      logger: deps.logger,
    });
  }
  if (deps.appEnv === 'local') return createLogSmsGateway({ logger: deps.logger, appEnv: deps.appEnv, provider: deps.localProvider });
  return createUnconfiguredSmsGateway({ provider: deps.provider, setting: deps.setting });
}
