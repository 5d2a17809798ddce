import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a stand-in received it: the body parsed when it is JSON, else its text. */
export interface StandInRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface StandInReply {
  /** Answers `status` with `answer` as JSON. */
  send: (status: number, answer: unknown) => void;
  /** The raw response, for an answer that is not JSON. */
  res: ServerResponse;
}

export interface StandInServer {
  url: string;
  requests: StandInRequest[];
  stop: () => Promise<void>;
}

/**
 * A local HTTP server standing in for a third party's JSON API (one that cannot run here): it
 * records every request, leaves it unanswered while `hanging()` says so (until `stop`), and hands
 * the others to `route`.
 */
export async function startStandInServer(
  route: (req: StandInRequest, reply: StandInReply) => void,
  hanging: () => boolean,
): Promise<StandInServer> {
  const requests: StandInRequest[] = [];
  const hung = new Set<() => void>();
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
      const request: StandInRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
      requests.push(request);
      if (hanging()) {
        hung.add(() => res.destroy());
        return;
      }
      const send = (status: number, answer: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      route(request, { send, res });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: async () => {
      for (const release of hung) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
