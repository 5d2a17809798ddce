import { AppError } from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import { createLeasedJobWorker, defineLeasedJob } from '@holdfast/runtime';
import type { SecretBox } from '@holdfast/secrets';
import type { ControlsRepository, DueDelivery } from './repository.js';
import { maskPhone, type SmsGateway, type SmsMessage } from './sms.js';
import { codeDeliveries } from './tables.js';

/** Sends of one code before it is given up (the code expires long before anyway). */
export const MAX_DELIVERY_ATTEMPTS = 8;

/** The sealing context of a delivery: a sealed code copied into another row does not open. */
export const deliveryContext = (challengeId: string) => `code_deliveries.sealed:${challengeId}`;

/** 1 s, 2 s, 4 s... at most 60 s. */
export const deliveryBackoffMs = (attempts: number) => Math.min(1000 * 2 ** Math.max(0, attempts - 1), 60_000);

/** The sends of `code_deliveries`, as a leased job (ADR 65). */
export const codeDeliveryJob = defineLeasedJob<DueDelivery>({
  name: 'code-delivery',
  table: codeDeliveries,
  lease: { seconds: 60 },
  batch: 10,
  attempts: MAX_DELIVERY_ATTEMPTS,
  backoff: deliveryBackoffMs,
  // A gateway refusal that retrying cannot fix (bad key, refused number) fails the delivery at once.
  permanent: (error) => error instanceof AppError && (error.details as { retryable?: boolean } | undefined)?.retryable === false,
  failure: (error) => (error instanceof Error ? error.message.slice(0, 300) : String(error)),
  concurrency: 'parallel',
  describe: (d) => ({ transactionId: d.transactionId, purpose: d.purpose, attempts: d.attempts }),
  messages: { retrying: 'verification code send failed; will retry', gaveUp: 'verification code not delivered' },
});

export interface CodeDeliveryDeps {
  sql: Sql;
  repository: ControlsRepository;
  box: SecretBox;
  gateways: Record<'two_factor' | 'vendor_sms', SmsGateway>;
  logger: Logger;
  pollIntervalMs: number;
}

/**
 * Sends the one-time codes of `code_deliveries` once the transaction that wrote them committed
 * (docs/controls.md, "Codes after commit"). At least once: a code is sent again only when a
 * claimer died between sending and recording (its lease ran out). A challenge that is no longer
 * open (verified, expired) is dropped unsent. A gateway refusal that retrying cannot fix (bad key,
 * refused number) fails the delivery at once; anything else is retried with back-off.
 */
export function createCodeDeliveryWorker(deps: CodeDeliveryDeps) {
  const { sql, repository, box, gateways, pollIntervalMs } = deps;
  const log = deps.logger.child({ component: 'code-delivery' });

  async function deliver(d: DueDelivery): Promise<void> {
    if (!d.challengeOpen || d.sealed === null) {
      await repository.finishDelivery(sql, d.challengeId, 'dropped', null, 'the challenge is no longer open');
      return;
    }
    const message = JSON.parse(box.open(d.sealed, deliveryContext(d.challengeId))) as Omit<SmsMessage, 'transactionId' | 'purpose'>;
    const sent = await gateways[d.purpose].send({ ...message, transactionId: d.transactionId, purpose: d.purpose });
    await repository.finishDelivery(sql, d.challengeId, 'sent', sent.messageId, null);
    log.info({ transactionId: d.transactionId, to: maskPhone(message.to), purpose: d.purpose }, 'verification code sent');
  }

  return createLeasedJobWorker(
    codeDeliveryJob,
    { logger: deps.logger, intervalMs: pollIntervalMs },
    {
      claim: (limit, leaseSeconds) => sql.begin((tx) => repository.claimDueDeliveries(tx, limit, leaseSeconds)),
      run: deliver,
      retry: (d, delayMs, failure) => repository.retryDelivery(sql, d.challengeId, delayMs, failure),
      giveUp: (d, failure) => repository.finishDelivery(sql, d.challengeId, 'failed', null, failure),
    },
  );
}
export type CodeDeliveryWorker = ReturnType<typeof createCodeDeliveryWorker>;
