import { randomBytes } from 'node:crypto';
import { type StandInRequest, startStandInServer } from './json-stand-in.js';

export type GatewayRequest = StandInRequest;

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
  const messages: AcceptedMessage[] = [];
  const server = await startStandInServer(
    (req, { send, res }) => {
      if (req.method !== 'POST' || req.path !== '/messages') return send(404, { error: 'not_found' });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'unauthorized' });
      if (typeof self.mode === 'number') return send(self.mode, { error: 'as configured' });
      if (self.mode === 'malformed') return send(200, { status: 'queued' });
      if (self.mode === 'not-json') return res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
      const { to, body: textBody, reference } = (req.body ?? {}) as { to?: unknown; body?: unknown; reference?: unknown };
      if (typeof to !== 'string' || !/^\+[1-9]\d{6,14}$/.test(to) || typeof textBody !== 'string' || typeof reference !== 'string') {
        return send(422, { error: 'invalid_request' });
      }
      const id = `msg_${randomBytes(12).toString('hex')}`;
      if (self.mode === 'rejected') return send(200, { id, status: 'rejected' });
      messages.push({ id, to, body: textBody, reference });
      return send(202, { id, status: 'queued' });
    },
    () => self.mode === 'hang',
  );
  const self: GatewayStandIn = { url: server.url, apiKey, requests: server.requests, messages, mode: 'ok', stop: server.stop };
  return self;
}
