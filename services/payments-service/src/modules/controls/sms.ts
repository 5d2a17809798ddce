import type { AppEnv } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';

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
 * (with an AppError `UPSTREAM_UNAVAILABLE`) when it did not; the creation that asked for the code
 * then writes nothing.
 */
export interface SmsGateway {
  /** Recorded as the verification's `provider`. */
  readonly provider: string;
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
