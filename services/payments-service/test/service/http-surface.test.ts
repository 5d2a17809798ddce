import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { freePort, startServiceProcesses } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { call, NON_LOCAL_SECRETS, type PaymentsEnv, PRODUCTION_ENV, startPaymentsEnv } from '../support/harness.js';

// What every answer of the Payments API carries and where its operational surface is (issue 28
// item 9): security headers on every answer (HSTS outside local), /docs optional in production,
// /metrics on an internal port when METRICS_PORT is set, and a local process on 127.0.0.1 only.

const started: PaymentsEnv[] = [];
async function env(vars: Record<string, string>) {
  const e = await startPaymentsEnv(vars);
  started.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(started.map((e) => e.stop()));
});

/** Any answer, JSON or not (the docs page is HTML). */
const get = async (base: string, path: string) => {
  const res = await request(`${base}${path}`);
  await res.body.dump();
  return { status: res.statusCode, headers: res.headers };
};

const expectSecurityHeaders = (headers: Record<string, unknown>) => {
  expect(headers).toMatchObject({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "frame-ancestors 'none'",
  });
};

describe('security headers on every answer', () => {
  it('local: a success, an error, an unknown path and bad JSON all carry them; no HSTS over plain local HTTP', async () => {
    const local = await env({});
    const answers = [
      await call(local.svc.url, 'GET', '/health'),
      await call(local.svc.url, 'GET', '/api/v2/transactions'),
      await call(local.svc.url, 'GET', '/nowhere'),
      await call(local.svc.url, 'GET', '/api/v2/transactions/%ZZ'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 400]);
    for (const answer of answers) {
      expectSecurityHeaders(answer.headers);
      expect(answer.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('outside local: HSTS too', async () => {
    const staging = await env({ APP_ENV: 'staging', ...NON_LOCAL_SECRETS });
    for (const path of ['/health', '/nowhere', '/docs/']) {
      const answer = await get(staging.svc.url, path);
      expectSecurityHeaders(answer.headers);
      expect(answer.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    }
  });
});

describe('/docs and /openapi.json', () => {
  it('are not served in production unless API_DOCS=true (nor /metrics on the API port); served elsewhere', async () => {
    const production = await env(PRODUCTION_ENV);
    for (const path of ['/docs/', '/openapi.json']) {
      const res = await call(production.svc.url, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    // Nor /metrics on the API port: without METRICS_PORT production serves it nowhere.
    const metrics = await call(production.svc.url, 'GET', '/metrics');
    expect(metrics.status).toBe(404);
    expect(metrics.body.error.code).toBe('NOT_FOUND');
    const documented = await env({ ...PRODUCTION_ENV, API_DOCS: 'true' });
    expect((await get(documented.svc.url, '/openapi.json')).status).toBe(200);
    expect((await get(documented.svc.url, '/docs/')).status).toBe(200);
  });
});

describe('the process (dist/main.js)', () => {
  it('listens on 127.0.0.1 only in local by default, and with METRICS_PORT serves /metrics there and not on the API port', async () => {
    const metricsPort = await freePort();
    const processes = await startServiceProcesses({ services: ['payments-service'], env: { METRICS_PORT: String(metricsPort) } });
    try {
      const base = processes.urls['payments-service']!;
      const onApi = await call(base, 'GET', '/metrics');
      expect(onApi.status).toBe(404);
      expect(onApi.body.error.code).toBe('NOT_FOUND');
      const internal = await request(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(internal.statusCode).toBe(200);
      expect(internal.headers['x-content-type-options']).toBe('nosniff');
      expect(await internal.body.text()).toMatch(/http_request_duration_seconds_count\{[^}]*status_code="404"/);
      // No other interface answers: a local stack is not on the network.
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
      if (external) {
        const port = Number(new URL(base).port);
        const outcome = await new Promise<string>((resolve) => {
          const socket = connect({ host: external, port });
          socket.once('connect', () => {
            socket.destroy();
            resolve('connected');
          });
          socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        });
        expect(outcome).toBe('ECONNREFUSED');
      }
    } finally {
      await processes.stop();
    }
  }, 120_000);
});
