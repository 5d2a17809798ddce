import { createServer, type ServerResponse } from 'node:http';
import type { Logger } from '@holdfast/logging';
import { errorEnvelope } from './envelope.js';
import { probeReadiness, type ReadinessBody, type ReadinessCheck } from './health.js';

export interface WaitOptions {
  host: string;
  port: number;
  logger: Logger;
  /** What the process needs before it can be assembled (PostgreSQL, NATS with JetStream). */
  checks: ReadinessCheck[];
  /** Pause between two probes (default 1 s). */
  retryMs?: number;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

/**
 * Holds a process that starts while PostgreSQL or NATS is down: instead of exiting, it probes them
 * until every check passes, meanwhile answering on its own port `/health` 200 (alive),
 * `/health/ready` 503 naming what is missing (the same body as the real route) and any other path
 * 503 SERVICE_UNAVAILABLE with `Retry-After`. Resolves once all answer and the port is free again;
 * SIGINT/SIGTERM while waiting exits 0 (nothing was started).
 */
export async function waitForDependencies(options: WaitOptions): Promise<void> {
  const { logger, checks } = options;
  let last = await probeReadiness(checks);
  if (!last.failing) return;

  let requestSeq = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') return send(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/health/ready') {
      void probeReadiness(checks).then((body: ReadinessBody) => send(res, body.failing ? 503 : 200, body));
      return;
    }
    const message = `starting: waiting for ${(last.failing ?? []).join(', ') || 'its dependencies'}`;
    send(res, 503, errorEnvelope({ code: 'SERVICE_UNAVAILABLE', message, statusCode: 503 }, `starting-${++requestSeq}`), {
      'retry-after': '2',
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });

  const onSignal = (signal: string) => {
    logger.info({ signal }, 'stopped while waiting for dependencies');
    server.close();
    process.exit(0);
  };
  const onSigterm = () => onSignal('SIGTERM');
  const onSigint = () => onSignal('SIGINT');
  process.on('SIGTERM', onSigterm);
  process.on('SIGINT', onSigint);

  const retryMs = options.retryMs ?? 1000;
  let loggedAt = 0;
  try {
    while (last.failing) {
      // One line when waiting starts, then one every 30 s: the log says why the process is not ready.
      if (Date.now() - loggedAt >= 30_000) {
        logger.warn({ failing: last.failing, checks: last.checks }, 'waiting for dependencies before starting (ready answers 503)');
        loggedAt = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
      last = await probeReadiness(checks);
    }
    logger.info({ checks: last.checks }, 'dependencies answer: starting');
  } finally {
    process.off('SIGTERM', onSigterm);
    process.off('SIGINT', onSigint);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
