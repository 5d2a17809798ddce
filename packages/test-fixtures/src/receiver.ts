import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver got: the raw body exactly as sent (signatures are over these bytes). */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the dispatcher's time-out or a kill ends it). */
  hang?: boolean;
}

/**
 * A real HTTP receiver on loopback. `respond` decides each answer (default 200); every request is
 * recorded. `received(path)` lists what reached one path, so that a test file can give each
 * subscription a path of its own on one receiver.
 */
export async function startReceiver(respond: (request: Received, index: number) => Reply | Promise<Reply> = () => ({ status: 200 })) {
  const requests: Received[] = [];
  let responder = respond;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const received: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      const reply = await responder(received, requests.filter((r) => r.path === received.path).length - 1);
      if (reply.hang) return;
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    requests,
    received: (path: string) => requests.filter((r) => r.path === path),
    setResponder: (next: typeof respond) => {
      responder = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
