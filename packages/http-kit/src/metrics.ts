import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per app (not prom-client's global one), so a test can run several apps in one process.
 * With `internal`, `/metrics` is served on that host and port only (METRICS_PORT: reachable by the
 * scraper, not by API clients), started with the app's listen and closed with it; `unserved`, on
 * no port; without, on the app's own port.
 */
export function registerMetrics(app: FastifyInstance, service: string, internal?: { host: string; port: number } | 'unserved'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL: ids in paths would explode the label cardinality.
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  // Collected (features add to the registry) but served nowhere: production without METRICS_PORT.
  if (internal === 'unserved') return registry;
  if (!internal) {
    app.get('/metrics', { schema: { hide: true }, config: { unlimited: true } }, async (_request, reply) => {
      reply.header('Content-Type', registry.contentType);
      return registry.metrics();
    });
    return registry;
  }
  let server: Server | undefined;
  app.addHook('onListen', async () => {
    server = createServer((req, res) => {
      const headers = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end('Not found: only GET /metrics here\n');
        return;
      }
      registry.metrics().then(
        (text) => res.writeHead(200, { ...headers, 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500, headers).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(internal.port, internal.host, () => resolve());
    });
    app.log.info({ host: internal.host, port: internal.port }, 'metrics on their own port');
  });
  app.addHook('onClose', async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  return registry;
}

/**
 * A gauge counted at each scrape (a query of the database): one series per key of what `counts`
 * returns, under `label`; a key no longer returned loses its series.
 */
export function registerCountGauge(
  registry: Registry,
  options: { name: string; help: string; label: string; counts: () => Promise<Record<string, number>> },
): void {
  const { label } = options;
  new Gauge({
    name: options.name,
    help: options.help,
    labelNames: [label],
    registers: [registry],
    async collect() {
      const counts = await options.counts();
      this.reset();
      for (const [value, n] of Object.entries(counts)) this.set({ [label]: value }, n);
    },
  });
}
