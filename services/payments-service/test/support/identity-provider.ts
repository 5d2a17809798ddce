import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

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
  const requests: ProviderRequest[] = [];
  const inquiries = new Map<string, string>();
  const byKey = new Map<string, { id: string; sessionToken: string }>();
  const hanging = new Set<() => void>();
  const self: ProviderStandIn = {
    url: '',
    apiKey,
    requests,
    inquiries,
    mode: 'ok',
    stop: async () => {
      for (const release of hanging) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
      const send = (status: number, answer: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (self.mode === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/inquiries') return send(404, { error: 'not_found' });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'unauthorized' });
      if (typeof self.mode === 'number') return send(self.mode, { error: 'as configured' });
      if (self.mode === 'malformed') return send(200, { sessionToken: 'x' });
      const { referenceId, type } = (body ?? {}) as { referenceId?: unknown; type?: unknown };
      if (typeof referenceId !== 'string' || typeof type !== 'string') return send(422, { error: 'invalid_request' });
      const key = String(req.headers['idempotency-key'] ?? randomUUID());
      const inquiry = byKey.get(key) ?? {
        id: `inq_${randomBytes(12).toString('hex')}`,
        sessionToken: `ses_${randomBytes(24).toString('base64url')}`,
      };
      byKey.set(key, inquiry);
      inquiries.set(inquiry.id, referenceId);
      return send(201, inquiry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}
