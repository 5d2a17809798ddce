import { randomBytes, randomUUID } from 'node:crypto';
import type { StandInRequest } from '@holdfast/test-fixtures';
import { startVendorEndpoint } from './vendor-endpoint.js';

export type ProviderRequest = StandInRequest;

/** `ok`, an HTTP status to answer, `malformed` (200 without an id) or `hang` (never answer). */
export type ProviderMode = 'ok' | 'malformed' | 'hang' | number;

export interface ProviderStandIn {
  url: string;
  apiKey: string;
  requests: ProviderRequest[];
  /** Inquiries opened: id -> the request's referenceId. */
  inquiries: Map<string, string>;
  mode: ProviderMode;
  stop: () => Promise<void>;
}

/**
 * A local stand-in of the identity provider's API, as docs/api/compliance.md describes it:
 * `POST /v1/inquiries` with `Authorization: Bearer <apiKey>` and `{referenceId, type}` answers 201
 * `{id, sessionToken}`; the same Idempotency-Key answers the same inquiry again.
 */
export async function startIdentityProvider(): Promise<ProviderStandIn> {
  const apiKey = `idp_${randomBytes(16).toString('hex')}`;
  const inquiries = new Map<string, string>();
  const byKey = new Map<string, { id: string; sessionToken: string }>();
  const server = await startVendorEndpoint(
    { method: 'POST', path: '/v1/inquiries', apiKey },
    () => self.mode,
    (req) => {
      if (self.mode === 'malformed') return { status: 200, body: { sessionToken: 'x' } };
      const { referenceId, type } = (req.json ?? {}) as { referenceId?: unknown; type?: unknown };
      if (typeof referenceId !== 'string' || typeof type !== 'string') return { status: 422, body: { error: 'invalid_request' } };
      const key = String(req.headers['idempotency-key'] ?? randomUUID());
      const inquiry = byKey.get(key) ?? {
        id: `inq_${randomBytes(12).toString('hex')}`,
        sessionToken: `ses_${randomBytes(24).toString('base64url')}`,
      };
      byKey.set(key, inquiry);
      inquiries.set(inquiry.id, referenceId);
      return { status: 201, body: inquiry };
    },
  );
  const self: ProviderStandIn = { url: server.url, apiKey, requests: server.requests, inquiries, mode: 'ok', stop: server.stop };
  return self;
}
