import { fileFixture } from '@holdfast/test-fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHttpIdentityProvider,
  createLocalIdentityProvider,
  IDENTITY_PROVIDER_NAME,
} from '../../src/modules/compliance/identity-provider.js';
import { startIdentityProvider } from '../support/identity-provider.js';

// The identity provider adapter against a local stand-in of the provider's API.
const provider = fileFixture(() => startIdentityProvider());
afterEach(() => {
  provider.mode = 'ok';
});

const adapter = (overrides: { apiKey?: string; timeoutMs?: number; url?: string } = {}) =>
  createHttpIdentityProvider({
    url: overrides.url ?? provider.url,
    apiKey: overrides.apiKey ?? provider.apiKey,
    timeoutMs: overrides.timeoutMs ?? 5000,
  });

const referenceId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('HTTP identity provider', () => {
  it('opens an inquiry with the key, the reference as idempotency key and JSON, and answers its id and session token', async () => {
    const inquiry = await adapter().createInquiry({ referenceId, type: 'identity' });
    expect(inquiry.externalInquiryId).toMatch(/^inq_[0-9a-f]{24}$/);
    expect(inquiry.externalSessionToken).toMatch(/^ses_/);
    const sent = provider.requests.at(-1);
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/inquiries', json: { referenceId, type: 'identity' } });
    expect(sent?.headers.authorization).toBe(`Bearer ${provider.apiKey}`);
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers['idempotency-key']).toBe(referenceId);
    expect(provider.inquiries.get(inquiry.externalInquiryId)).toBe(referenceId);
    expect(adapter().name).toBe(IDENTITY_PROVIDER_NAME);
  });

  it('answers the same inquiry when the same reference is sent again', async () => {
    const again = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
    const first = await adapter().createInquiry({ referenceId: again, type: 'document' });
    expect(await adapter().createInquiry({ referenceId: again, type: 'document' })).toEqual(first);
  });

  it('reports a refused key as a permanent failure (502)', async () => {
    const error = await adapter({ apiKey: 'wrong-key-0000000000' })
      .createInquiry({ referenceId, type: 'identity' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: false, code: 'INTEGRATION_PROVIDER_ERROR', statusCode: 502, details: { retryable: false } });
  });

  it.each([500, 503, 429])('reports %i as retryable (502)', async (status) => {
    provider.mode = status;
    await expect(adapter().createInquiry({ referenceId, type: 'identity' })).rejects.toMatchObject({
      retryable: true,
      code: 'INTEGRATION_PROVIDER_ERROR',
      statusCode: 502,
      details: { retryable: true },
    });
  });

  it('reports an answer without an inquiry id as retryable', async () => {
    provider.mode = 'malformed';
    await expect(adapter().createInquiry({ referenceId, type: 'identity' })).rejects.toMatchObject({ retryable: true });
  });

  it('gives up after its timeout, and on an unreachable provider', async () => {
    provider.mode = 'hang';
    await expect(adapter({ timeoutMs: 200 }).createInquiry({ referenceId, type: 'identity' })).rejects.toMatchObject({ retryable: true });
    await expect(adapter({ url: 'http://127.0.0.1:9' }).createInquiry({ referenceId, type: 'identity' })).rejects.toMatchObject({
      retryable: true,
    });
  });
});

describe('local identity provider', () => {
  it('calls nobody and answers a fresh inquiry', async () => {
    const local = createLocalIdentityProvider();
    const a = await local.createInquiry({ referenceId, type: 'email' });
    const b = await local.createInquiry({ referenceId, type: 'email' });
    expect(a.externalInquiryId).toMatch(/^inq_local_[0-9a-f]{32}$/);
    expect(a.externalSessionToken).toMatch(/^ses_local_/);
    expect(b.externalInquiryId).not.toBe(a.externalInquiryId);
  });
});
