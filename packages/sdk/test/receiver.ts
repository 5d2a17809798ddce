import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface Received {
  rawBody: string;
  headers: IncomingHttpHeaders;
}

/** A local HTTP endpoint that answers 204 and keeps every request's raw body and headers. */
export async function startReceiver(answer: (received: Received) => number = () => 204) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { rawBody: Buffer.concat(chunks).toString('utf8'), headers: req.headers };
      received.push(entry);
      res.writeHead(answer(entry)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Waits (bounded) for the first request that matches. */
    waitFor: async (match: (r: Received) => boolean, timeoutMs = 20_000): Promise<Received> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching request in ${timeoutMs} ms (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
