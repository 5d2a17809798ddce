import { randomBytes } from 'node:crypto';
import type { StandInRequest } from '@holdfast/test-fixtures';
import { startVendorEndpoint } from './vendor-endpoint.js';

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
  const server = await startVendorEndpoint(
    { method: 'POST', path: '/messages', apiKey },
    () => self.mode,
    (req) => {
      if (self.mode === 'malformed') return { status: 200, body: { status: 'queued' } };
      if (self.mode === 'not-json') return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'OK' };
      const { to, body: textBody, reference } = (req.json ?? {}) as { to?: unknown; body?: unknown; reference?: unknown };
      if (typeof to !== 'string' || !/^\+[1-9]\d{6,14}$/.test(to) || typeof textBody !== 'string' || typeof reference !== 'string') {
        return { status: 422, body: { error: 'invalid_request' } };
      }
      const id = `msg_${randomBytes(12).toString('hex')}`;
      if (self.mode === 'rejected') return { status: 200, body: { id, status: 'rejected' } };
      messages.push({ id, to, body: textBody, reference });
      return { status: 202, body: { id, status: 'queued' } };
    },
  );
  const self: GatewayStandIn = { url: server.url, apiKey, requests: server.requests, messages, mode: 'ok', stop: server.stop };
  return self;
}
