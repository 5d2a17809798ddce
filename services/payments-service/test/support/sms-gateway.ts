import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatewayRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A message the stand-in accepted. */
export interface AcceptedMessage {
  id: string;
  to: string;
  body: string;
  reference: string;
}

/**
 * `ok`; an HTTP status to answer; `rejected` (200 with status `rejected`); `malformed` (200 without
 * an id); `not-json` (200 with a text body); or `hang` (never answer).
 */
export type GatewayMode = 'ok' | 'rejected' | 'malformed' | 'not-json' | 'hang' | number;

export interface GatewayStandIn {
  url: string;
  apiKey: string;
  requests: GatewayRequest[];
  messages: AcceptedMessage[];
  mode: GatewayMode;
  stop: () => Promise<void>;
}

/**
 * A local stand-in of the SMS gateway's API, as docs/controls.md ("SMS gateway adapters")
 * describes it: `POST /messages` with `Authorization: Bearer <apiKey>` and `{to, body, reference}`
 * (to in E.164) answers 202 `{id, status: 'queued'}`; a missing or wrong key answers 401, a body
 * of the wrong shape 422.
 */
export async function startSmsGateway(): Promise<GatewayStandIn> {
  const apiKey = `sms_${randomBytes(16).toString('hex')}`;
  const requests: GatewayRequest[] = [];
  const messages: AcceptedMessage[] = [];
  const hanging = new Set<() => void>();
  const self: GatewayStandIn = {
    url: '',
    apiKey,
    requests,
    messages,
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
      if (req.method !== 'POST' || req.url !== '/messages') return send(404, { error: 'not_found' });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'unauthorized' });
      if (typeof self.mode === 'number') return send(self.mode, { error: 'as configured' });
      if (self.mode === 'malformed') return send(200, { status: 'queued' });
      if (self.mode === 'not-json') return res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
      const { to, body: textBody, reference } = (body ?? {}) as { to?: unknown; body?: unknown; reference?: unknown };
      if (typeof to !== 'string' || !/^\+[1-9]\d{6,14}$/.test(to) || typeof textBody !== 'string' || typeof reference !== 'string') {
        return send(422, { error: 'invalid_request' });
      }
      const id = `msg_${randomBytes(12).toString('hex')}`;
      if (self.mode === 'rejected') return send(200, { id, status: 'rejected' });
      messages.push({ id, to, body: textBody, reference });
      return send(202, { id, status: 'queued' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}
