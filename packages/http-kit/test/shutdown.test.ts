import { connect, type Socket } from 'node:net';
import { Type } from '@sinclair/typebox';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { quietApp } from './quiet-app.js';

// A close must not wait for a connection that has sent nothing yet (a client or a load balancer
// connecting ahead of its request): Node counts it neither idle nor in a request and waited for its
// headers timeout (60 s), longer than a service's shutdown time-out, so the process exited by its
// time-out without closing its workers.

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => 'closed' as const), new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref())]);

describe('closing the HTTP server', () => {
  it('ends a connection that has sent no request, and still answers what arrived before', async () => {
    const app = await quietApp('shutdown-test', {
      apiVersion: () => 'v2',
      openapi: { title: 'Shutdown', version: '1.0.0', description: 'shutdown' },
    });
    app.get('/thing', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }));
    const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    const answered = await request(`${url.origin}/thing`);
    expect(answered.statusCode).toBe(200);
    expect(await answered.body.json()).toEqual({ ok: true });

    const silent: Socket = await new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), '127.0.0.1', () => resolve(socket)).on('error', reject);
    });
    const ended = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    expect(await within(app.close(), 5000)).toBe('closed');
    await ended;
    expect(silent.destroyed).toBe(true);
  });
});
