// The benchmark's webhook receiver, in a process of its own so that it never shares an event loop
// with what it measures. Answers every POST 200 at once; records, per request, the time from the
// body's `createdAt` (when the event was published, or the plain POST was started) to its arrival.
// GET /stats returns what it saw since the last POST /reset. Prints its port on stdout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let latencies: number[] = [];
let first = 0;
let last = 0;
const deliveries = new Set<string>();
let duplicates = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ count: latencies.length, first, last, latencies, duplicates }));
    return;
  }
  if (req.url === '/reset') {
    latencies = [];
    first = 0;
    last = 0;
    duplicates = 0;
    deliveries.clear();
    res.writeHead(200).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string };
    latencies.push(now - Date.parse(body.createdAt));
    if (first === 0) first = now;
    last = now;
    const delivery = req.headers['x-webhook-delivery'];
    if (typeof delivery === 'string') {
      if (deliveries.has(delivery)) duplicates += 1;
      deliveries.add(delivery);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"received":true}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
