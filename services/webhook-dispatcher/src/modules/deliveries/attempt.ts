import { uuidv7 } from '@holdfast/contracts';
import type { SecretBox } from '@holdfast/secrets';
import type { SubscriptionRow } from '../subscriptions/index.js';
import type { TargetPolicy } from '../target-safety/index.js';
import type { NewAttemptLog } from './repository.js';
import { type AttemptOutcome, sendAttempt } from './sender.js';
import { deliveryHeaders, loggedHeaders } from './signing.js';
import { createSigningSecrets } from './signing-secrets.js';

/** Where an attempt goes: a subscription's receiver, the addresses it may resolve to, and its sealed secrets. */
export type AttemptTarget = Pick<SubscriptionRow, 'id' | 'url' | 'ipWhitelist' | 'secretSealed' | 'previousSecretSealed'>;

/** One attempt of one delivery: the event's body, sent to the target. */
export interface AttemptRequest {
  target: AttemptTarget;
  deliveryId: string;
  eventId: string;
  eventType: string;
  /** The attempt's number in the delivery log. */
  attempt: number;
  body: string;
  timeoutMs: number;
}

/** What came of an attempt, and its delivery log entry to store. */
export interface SentAttempt {
  outcome: AttemptOutcome;
  log: NewAttemptLog;
  /** Why nothing was sent, when the subscription's secret could not be opened (the outcome says it failed). */
  signingError?: unknown;
}

/**
 * One attempt, the part the delivery worker and the `test` command share: signs the body with the
 * subscription's secrets (both during a rotation), POSTs it through the outbound safety rules of
 * the target policy (no redirect followed, refused addresses never reached), and describes the
 * result as its log entry. Never throws: a failure to sign or to send is an outcome. Storing the
 * entry is the caller's (the worker stores results in batches, the test command at once).
 */
export interface DeliveryAttempt {
  send: (request: AttemptRequest) => Promise<SentAttempt>;
}

export function createDeliveryAttempt(deps: { policy: TargetPolicy; secrets: SecretBox }): DeliveryAttempt {
  const signingSecrets = createSigningSecrets(deps.secrets);

  return {
    send: async (request) => {
      const { target } = request;
      let headers: Record<string, string> = {};
      let outcome: AttemptOutcome;
      let signingError: unknown;
      try {
        headers = deliveryHeaders({
          body: request.body,
          eventType: request.eventType,
          deliveryId: request.deliveryId,
          timestamp: Math.floor(Date.now() / 1000),
          secrets: signingSecrets(target),
        });
      } catch (error) {
        signingError = error;
      }
      if (signingError === undefined) {
        outcome = await sendAttempt({
          dispatcher: deps.policy.dispatcherFor(target.ipWhitelist),
          url: target.url,
          headers,
          body: request.body,
          timeoutMs: request.timeoutMs,
        });
      } else {
        outcome = {
          success: false,
          statusCode: null,
          responseTimeMs: 0,
          errorMessage: 'the subscription secret could not be read',
          responseBody: null,
          retryAfterMs: null,
        };
      }
      const log: NewAttemptLog = {
        id: uuidv7(),
        subscriptionId: target.id,
        deliveryId: request.deliveryId,
        eventId: request.eventId,
        eventType: request.eventType,
        attempt: request.attempt,
        success: outcome.success,
        statusCode: outcome.statusCode,
        responseTimeMs: outcome.responseTimeMs,
        errorMessage: outcome.errorMessage,
        requestHeaders: loggedHeaders(headers),
        responseBody: outcome.responseBody,
      };
      return signingError === undefined ? { outcome, log } : { outcome, log, signingError };
    },
  };
}
