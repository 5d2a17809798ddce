import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { quietApp } from './quiet-app.js';

// Fastify answers a request that reaches the router while the server closes with its own 503
// (`{"error":"Service Unavailable",...}`), outside the envelope. Such a request is rare: an idle
// connection is closed, a response that finishes during the close says `Connection: close`, so a
// request pipelined behind it is never read. But an answer whose headers left before the close
// (a stream) keeps its connection alive, and the request pipelined behind it is answered.

describe('a request that arrives while the server closes', () => {
  it('is answered 503 SERVICE_UNAVAILABLE in the envelope, with Retry-After and Connection: close', async () => {
    const app = await quietApp('close-test', { apiVersion: () => 'v2' });
    let release!: () => void;
    let streaming!: () => void;
    const started = new Promise<void>((resolve) => (streaming = resolve));
    app.get('/stream', async (_request, reply) => {
      const body = new PassThrough();
      body.write('first ');
      streaming();
      void new Promise<void>((resolve) => (release = resolve)).then(() => body.end('last'));
      return reply.type('text/plain').send(body);
    });
    app.get('/thing', async () => ({ ok: true }));
    const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    const socket: Socket = await new Promise((resolve, reject) => {
      const s = connect(Number(url.port), '127.0.0.1', () => resolve(s)).on('error', reject);
    });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
    });
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\n');
    await started;
    const closed = app.close();
    // The close has begun (its preClose hook ran) before the second request is written.
    await new Promise((resolve) => setImmediate(resolve));
    socket.write('GET /thing HTTP/1.1\r\nHost: x\r\n\r\n');
    // The second request is read and answered (queued behind the stream) before the stream ends.
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await closed;
    await ended;

    const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('first ');
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    const headers = second!.slice(0, second!.indexOf('\r\n\r\n')).toLowerCase();
    expect(headers).toContain('connection: close');
    expect(headers).toContain('retry-after: 1');
    expect(headers).toContain('x-content-type-options: nosniff');
    const body = JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({
      success: false,
      data: null,
      error: { code: 'SERVICE_UNAVAILABLE', statusCode: 503, message: 'This instance is shutting down; retry the request' },
    });
    expect(typeof body.meta.requestId).toBe('string');
  });
});
