import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { type RunningProcesses, startServiceProcesses } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceClient } from '../src/index.js';
import { relay } from './stack.js';

// The WorkspaceClient's session across access-token expiry, against workspace-service as a process
// whose tokens live 4 s (WORKSPACE_ACCESS_TOKEN_TTL): the client refreshes before expiry, and after
// a 401 TOKEN_EXPIRED, with the refresh token, never logging in again. A relaying HTTP proxy in
// front of the service records what the client sent and what it was answered.

const TTL_SECONDS = 4;

interface Seen {
  method: string;
  path: string;
  status: number;
  authorization?: string;
}

/** Relays to `target`, recording each exchange; the login answer can be held back (a slow network). */
async function recordingProxy(target: string) {
  const seen: Seen[] = [];
  let loginDelayMs = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { upstream, body } = await relay(target, req, chunks);
    const path = (req.url ?? '/').split('?')[0] as string;
    seen.push({
      method: req.method ?? 'GET',
      path,
      status: upstream.status,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    if (path === '/identity/login' && loginDelayMs > 0) await new Promise((r) => setTimeout(r, loginDelayMs));
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    holdLogin: (ms: number) => {
      loginDelayMs = ms;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function signUp(workspaceUrl: string) {
  const email = `sess${randomBytes(4).toString('hex')}@example.com`;
  const password = `Hf-${randomBytes(9).toString('base64url')}7!`;
  const post = async (path: string, body: object) => {
    const res = await fetch(`${workspaceUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { data: { verificationCode: string } };
  };
  const signup = await post('/auth/signup', { email, password, firstName: 'Ada', lastName: 'Lovelace', companyName: email });
  await post('/auth/verify-code', { email, code: signup.data.verificationCode });
  return { email, password };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let processes: RunningProcesses;
let workspaceUrl: string;

beforeAll(async () => {
  processes = await startServiceProcesses({
    services: ['workspace-service'],
    env: { WORKSPACE_ACCESS_TOKEN_TTL: `${TTL_SECONDS}s` },
  });
  workspaceUrl = processes.urls['workspace-service'] as string;
});
afterAll(async () => processes?.stop());

describe('WorkspaceClient session with short-lived access tokens', () => {
  it('keeps working across expiry: refreshes before the token expires, logs in once, never meets a 401', async () => {
    const user = await signUp(workspaceUrl);
    const proxy = await recordingProxy(workspaceUrl);
    try {
      const client = new WorkspaceClient({ baseUrl: proxy.url, ...user });
      expect((await client.me()).email).toBe(user.email);
      const login = proxy.seen.find((s) => s.path === '/identity/login');
      expect(login?.status).toBe(200);
      const firstToken = proxy.seen.find((s) => s.path === '/identity/me')?.authorization;
      // Two lifetimes of calls: each token is refreshed in its last quarter, before it expires.
      for (let i = 0; i < 4; i += 1) {
        await sleep(2_500);
        expect((await client.me()).email).toBe(user.email);
      }
      const paths = proxy.seen.map((s) => s.path);
      expect(paths.filter((p) => p === '/identity/login')).toHaveLength(1);
      expect(paths.filter((p) => p === '/identity/refresh').length).toBeGreaterThanOrEqual(2);
      expect(proxy.seen.filter((s) => s.path === '/identity/refresh').every((s) => s.status === 200)).toBe(true);
      expect(proxy.seen.filter((s) => s.path === '/identity/me').map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
      // The first token really is past its lifetime: the server refuses it now.
      const stale = await fetch(`${workspaceUrl}/identity/me`, { headers: { authorization: firstToken as string } });
      expect(stale.status).toBe(401);
      expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('TOKEN_EXPIRED');
    } finally {
      await proxy.close();
    }
  });

  it('after a 401 TOKEN_EXPIRED refreshes once and repeats the request, without logging in again', async () => {
    const user = await signUp(workspaceUrl);
    const proxy = await recordingProxy(workspaceUrl);
    try {
      // The login answer arrives after its token expired: the client believes it fresh, the server does not.
      proxy.holdLogin((TTL_SECONDS + 1.5) * 1000);
      const client = new WorkspaceClient({ baseUrl: proxy.url, ...user });
      expect((await client.me()).email).toBe(user.email);
      expect(proxy.seen.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
        'POST /identity/login 200',
        'GET /identity/me 401',
        'POST /identity/refresh 200',
        'GET /identity/me 200',
      ]);
      const [, rejected, , repeated] = proxy.seen;
      expect(repeated?.authorization).not.toBe(rejected?.authorization);
    } finally {
      await proxy.close();
    }
  });
});
