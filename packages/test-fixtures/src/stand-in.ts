import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the stand-in received it: its text, and the JSON it parses to (undefined when it is not JSON). */
export interface StandInRequest {
  method: string;
  /** Path with query, as sent. */
  path: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

export interface StandInAnswer {
  status: number;
  /** Sent as well (the content type is JSON unless they say otherwise). */
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is (to send malformed answers). */
  body?: unknown;
  /** Never answer (the client's deadline must fire). */
  hang?: boolean;
}

export interface StandIn {
  url: string;
  requests: StandInRequest[];
  stop: () => Promise<void>;
}

/**
 * A local HTTP server standing in for a third party's API in tests (a vendor that cannot run here):
 * it records every request and answers with what the handler returns. Hanging requests are
 * released when it stops.
 */
export async function startStandIn(handler: (req: StandInRequest) => StandInAnswer | Promise<StandInAnswer>): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const request: StandInRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        url: new URL(req.url ?? '/', 'http://stand-in'),
        headers: req.headers,
        body,
        json,
      };
      requests.push(request);
      let answer: StandInAnswer;
      try {
        answer = await handler(request);
      } catch (error) {
        answer = { status: 500, body: { message: String(error) } };
      }
      if (answer.hang) {
        hanging.add(() => res.destroy());
        return;
      }
      const text = typeof answer.body === 'string' ? answer.body : answer.body === undefined ? '' : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: async () => {
      for (const release of hanging) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
