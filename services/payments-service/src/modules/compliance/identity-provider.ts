import { randomBytes, randomUUID } from 'node:crypto';
import type { VerificationType } from '@holdfast/contracts';
import { AppError } from '@holdfast/contracts';

/**
 * The identity provider (a third party) behind an adapter. Holdfast opens one inquiry per
 * verification; the user completes it in the provider's SDK with the session token; the provider
 * reports the outcome by a signed callback (see signature.ts).
 */
export interface IdentityProvider {
  /** The name stored as the verification's `provider`. */
  readonly name: string;
  createInquiry: (request: InquiryRequest) => Promise<Inquiry>;
}

export interface InquiryRequest {
  /** Our verification id: the provider's reference and idempotency key. */
  referenceId: string;
  type: VerificationType;
}

export interface Inquiry {
  externalInquiryId: string;
  externalSessionToken: string;
}

export const IDENTITY_PROVIDER_NAME = 'identity-provider';

/**
 * The provider gave no usable answer: 502 INTEGRATION_PROVIDER_ERROR. `retryable` (in `details`
 * too) says whether trying again can help (time-out, 5xx, 429) or not (it refused our key).
 */
export class IdentityProviderError extends AppError {
  constructor(
    readonly retryable: boolean,
    reason: string,
  ) {
    super(
      'INTEGRATION_PROVIDER_ERROR',
      retryable ? 'The identity provider did not answer usably; try again' : 'The identity provider refused the request',
      { provider: IDENTITY_PROVIDER_NAME, retryable, reason },
    );
  }
}

const MAX_ANSWER_BYTES = 64 * 1024;
const ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * The provider's HTTP API: `POST {url}/v1/inquiries` with `Authorization: Bearer <apiKey>`,
 * `Idempotency-Key: <referenceId>` and `{referenceId, type}`, answering 200/201
 * `{id, sessionToken}`. 401/403/4xx are refusals; 5xx, 429, time-outs and malformed answers are
 * retryable. No redirects are followed.
 */
export function createHttpIdentityProvider(options: { url: string; apiKey: string; timeoutMs: number }): IdentityProvider {
  return {
    name: IDENTITY_PROVIDER_NAME,
    createInquiry: async (request) => {
      let response: Response;
      try {
        response = await fetch(`${options.url}/v1/inquiries`, {
          method: 'POST',
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            'content-type': 'application/json',
            accept: 'application/json',
            'idempotency-key': request.referenceId,
          },
          body: JSON.stringify({ referenceId: request.referenceId, type: request.type }),
        });
      } catch {
        throw new IdentityProviderError(true, 'unreachable');
      }
      const text = await readLimited(response);
      if (response.status === 429 || response.status >= 500) throw new IdentityProviderError(true, `status ${response.status}`);
      if (response.status !== 200 && response.status !== 201) throw new IdentityProviderError(false, `status ${response.status}`);
      let answer: { id?: unknown; sessionToken?: unknown };
      try {
        answer = JSON.parse(text ?? '') as typeof answer;
      } catch {
        throw new IdentityProviderError(true, 'malformed answer');
      }
      if (typeof answer?.id !== 'string' || !ID.test(answer.id) || typeof answer.sessionToken !== 'string' || !answer.sessionToken) {
        throw new IdentityProviderError(true, 'malformed answer');
      }
      return { externalInquiryId: answer.id, externalSessionToken: answer.sessionToken };
    },
  };
}

async function readLimited(response: Response): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > MAX_ANSWER_BYTES) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    throw new IdentityProviderError(true, 'answer interrupted');
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The local stand-in (APP_ENV=local without IDENTITY_PROVIDER_URL): calls nobody and opens the
 * inquiry at once. Outcomes arrive as callbacks signed with the local secret
 * (docs/api/compliance.md shows how to send one).
 */
export function createLocalIdentityProvider(): IdentityProvider {
  return {
    name: IDENTITY_PROVIDER_NAME,
    createInquiry: async () => ({
      externalInquiryId: `inq_local_${randomUUID().replaceAll('-', '')}`,
      externalSessionToken: `ses_local_${randomBytes(24).toString('base64url')}`,
    }),
  };
}
