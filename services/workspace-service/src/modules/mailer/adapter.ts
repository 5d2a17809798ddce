import { randomUUID } from 'node:crypto';
import type { Logger } from '@holdfast/logging';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain-text body. It may hold a code: never logged. */
  text: string;
  /** What the mail is for (`verification_code`), for the vendor's analytics and our logs. */
  tag: string;
}

/** Why a mail could not be sent; `retryable` when trying again later may work (vendor down, rate limited). */
export class MailerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'MailerError';
  }
}

/** Sends transactional e-mail. `production` uses the HTTP vendor; `local` and `staging` may log instead. */
export interface Mailer {
  readonly transport: 'log' | 'http';
  send: (message: MailMessage) => Promise<{ id: string }>;
}

/** Writes who would receive what to the log (never the body): for `local` and `staging`. */
export function createLogMailer(options: { from: string; logger: Logger }): Mailer {
  const log = options.logger.child({ component: 'mailer' });
  return {
    transport: 'log',
    send: async (message) => {
      const id = `log_${randomUUID()}`;
      log.info({ mailId: id, to: message.to, from: options.from, subject: message.subject, tag: message.tag }, 'e-mail logged (not sent)');
      return { id };
    },
  };
}

export interface HttpMailerOptions {
  /** The vendor's send endpoint, e.g. https://api.resend.com/emails. */
  url: string;
  apiKey: string;
  from: string;
  timeoutMs?: number;
  logger: Logger;
}

/**
 * An HTTP e-mail API in the common shape (Resend, and the JSON APIs of most vendors):
 * `POST <url>` with `Authorization: Bearer <key>`, `Idempotency-Key`, and
 * `{from, to: [..], subject, text, tags: [{name, value}]}`; a 2xx answers `{id}`.
 */
export function createHttpMailer(options: HttpMailerOptions): Mailer {
  const log = options.logger.child({ component: 'mailer' });
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    transport: 'http',
    send: async (message) => {
      const idempotencyKey = randomUUID();
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': idempotencyKey,
          },
          body: JSON.stringify({
            from: options.from,
            to: [message.to],
            subject: message.subject,
            text: message.text,
            tags: [{ name: 'category', value: message.tag }],
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        log.warn({ err: error, tag: message.tag }, 'e-mail vendor unreachable');
        throw new MailerError(`e-mail vendor unreachable: ${(error as Error).message}`, true);
      }
      const text = await response.text();
      if (!response.ok) {
        const retryable = response.status === 429 || response.status >= 500;
        log[retryable ? 'warn' : 'error']({ status: response.status, tag: message.tag }, 'e-mail vendor refused the message');
        throw new MailerError(`e-mail vendor answered ${response.status}`, retryable, response.status);
      }
      let id: unknown;
      try {
        id = (JSON.parse(text) as { id?: unknown }).id;
      } catch {
        id = undefined;
      }
      if (typeof id !== 'string' || id.length === 0)
        throw new MailerError('e-mail vendor answered without a message id', true, response.status);
      log.info({ mailId: id, tag: message.tag }, 'e-mail sent');
      return { id };
    },
  };
}
