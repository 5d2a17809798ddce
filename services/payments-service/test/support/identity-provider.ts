import { randomBytes, randomUUID } from 'node:crypto';
import { type StandInRequest, startStandInServer } from './json-stand-in.js';

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
  const server = await startStandInServer(
    (req, { send }) => {
      if (req.method !== 'POST' || req.path !== '/v1/inquiries') return send(404, { error: 'not_found' });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'unauthorized' });
      if (typeof self.mode === 'number') return send(self.mode, { error: 'as configured' });
      if (self.mode === 'malformed') return send(200, { sessionToken: 'x' });
      const { referenceId, type } = (req.body ?? {}) as { referenceId?: unknown; type?: unknown };
      if (typeof referenceId !== 'string' || typeof type !== 'string') return send(422, { error: 'invalid_request' });
      const key = String(req.headers['idempotency-key'] ?? randomUUID());
      const inquiry = byKey.get(key) ?? {
        id: `inq_${randomBytes(12).toString('hex')}`,
        sessionToken: `ses_${randomBytes(24).toString('base64url')}`,
      };
      byKey.set(key, inquiry);
      inquiries.set(inquiry.id, referenceId);
      return send(201, inquiry);
    },
    () => self.mode === 'hang',
  );
  const self: ProviderStandIn = { url: server.url, apiKey, requests: server.requests, inquiries, mode: 'ok', stop: server.stop };
  return self;
}
