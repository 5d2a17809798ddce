import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  headers: IncomingHttpHeaders;
  body: { from: string; to: string[]; subject: string; text: string; tags?: { name: string; value: string }[] };
}

/**
 * A local stand-in for the e-mail vendor's HTTP API (`POST /emails`, bearer key, JSON body,
 * `{id}` answer), with switches to make it fail the ways a vendor fails.
 */
export interface MailVendor {
  url: string;
  apiKey: string;
  received: ReceivedMail[];
  /** The status of the next answers (200 by default); `hang` never answers. */
  respondWith: (status: number | 'hang' | 'no-id') => void;
  close: () => Promise<void>;
}

export async function startMailVendor(apiKey = 'mail-key-0123456789'): Promise<MailVendor> {
  const received: ReceivedMail[] = [];
  let mode: number | 'hang' | 'no-id' = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/emails') {
        res.writeHead(404).end();
        return;
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'invalid api key' }));
        return;
      }
      if (mode === 'hang') return;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!body.from || !Array.isArray(body.to) || !body.subject || !body.text) {
        res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'missing fields' }));
        return;
      }
      if (typeof mode === 'number' && mode !== 200) {
        res.writeHead(mode, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'failure' }));
        return;
      }
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(mode === 'no-id' ? {} : { id: randomUUID() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/emails`,
    apiKey,
    received,
    respondWith: (next) => {
      mode = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
