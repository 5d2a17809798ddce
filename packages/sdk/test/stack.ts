import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { operatorOf, type RunningProcesses, type SignedUpWorkspace, signUpWorkspace, startServiceProcesses } from '@holdfast/test-fixtures';

export interface Stack {
  processes: RunningProcesses;
  paymentsUrl: string;
  workspaceUrl: string;
  tenant: SignedUpWorkspace;
  stop: () => Promise<void>;
}

/** Payments, workspace and the webhook dispatcher as real processes, and a signed-up workspace with sandbox credentials. */
export async function startStack(): Promise<Stack> {
  const processes = await startServiceProcesses({
    services: ['payments-service', 'workspace-service', 'webhook-dispatcher'],
    env: { WEBHOOK_RETRY_SCHEDULE: '1s,2s' },
  });
  const paymentsUrl = processes.urls['payments-service'] as string;
  const workspaceUrl = processes.urls['workspace-service'] as string;
  try {
    const tenant = await signUpWorkspace(workspaceUrl, operatorOf(processes));
    return { processes, paymentsUrl, workspaceUrl, tenant, stop: processes.stop };
  } catch (error) {
    await processes.stop();
    throw error;
  }
}

/** A random EVM-looking address. */
export const address = () => `0x${[...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;

/**
 * A TCP proxy to `target` that cuts the connection of the first request whose head matches, just as
 * the answer starts coming back: the server did the work, the client never hears of it.
 */
export async function droppingProxy(
  target: string,
  matches: (requestHead: string) => boolean,
  /** Relay the answer until this holds for what was relayed, then cut; without it, cut before any of it. */
  relayUntil?: (relayed: string) => boolean,
) {
  const { hostname, port } = new URL(target);
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    const backend = connect(Number(port), hostname);
    sockets.add(backend);
    const end = () => {
      client.destroy();
      backend.destroy();
    };
    let cut = false;
    let relayed: string | null = '';
    client.on('data', (chunk: Buffer) => {
      if (dropped === 0 && matches(chunk.toString('latin1'))) {
        dropped += 1;
        cut = true;
      }
      backend.write(chunk);
    });
    backend.on('data', (chunk: Buffer) => {
      if (!cut) return void client.write(chunk);
      if (!relayUntil) return end();
      if (relayed === null) return;
      relayed += chunk.toString('utf8');
      const done = relayUntil(relayed);
      client.write(chunk, done ? end : undefined);
      if (done) relayed = null;
    });
    client.on('close', end).on('error', end);
    backend.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    dropped: () => dropped,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Sends a request a proxy received (`chunks`: its body, already read) on to `target` with its method,
 * path and headers; answers the upstream response and its body.
 */
export async function relay(target: string, req: IncomingMessage, chunks: Buffer[]): Promise<{ upstream: Response; body: Buffer }> {
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
  ) as Record<string, string>;
  const upstream = await fetch(`${target}${req.url}`, {
    method: req.method,
    headers,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  });
  return { upstream, body: Buffer.from(await upstream.arrayBuffer()) };
}

/**
 * An HTTP proxy to `target` that answers some requests itself, as a load balancer in front of the
 * API would (`503` while an instance restarts, `429` with `Retry-After`); everything else passes
 * through. `answer` returns the status and headers to answer with, or undefined to pass it on.
 */
export async function answeringProxy(
  target: string,
  answer: (method: string, path: string, seen: number) => { status: number; headers?: Record<string, string> } | undefined,
) {
  const seen: string[] = [];
  const server = createHttpServer(async (req, res) => {
    const key = `${req.method} ${req.url}`;
    seen.push(key);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const own = answer(req.method ?? 'GET', req.url ?? '/', seen.filter((s) => s === key).length);
    if (own) {
      res.writeHead(own.status, { 'content-type': 'application/json', ...own.headers });
      res.end(
        JSON.stringify({
          success: false,
          data: null,
          error: {
            code: own.status === 429 ? 'RATE_LIMIT_EXCEEDED' : 'SERVICE_UNAVAILABLE',
            message: 'from the proxy',
            statusCode: own.status,
          },
        }),
      );
      return;
    }
    const { upstream, body } = await relay(target, req, chunks);
    res.writeHead(
      upstream.status,
      Object.fromEntries(
        [...upstream.headers].filter(([k]) => !['content-encoding', 'transfer-encoding', 'connection', 'content-length'].includes(k)),
      ),
    );
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
