import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, repoRoot, type TestDatabase } from '@holdfast/db/testing';
import { freePort } from '@holdfast/messaging/ports';
import { createTestBus, type TestBus } from '@holdfast/messaging/testing';
import { testRedisUrl } from './redis.js';

/** The services a client test can start, with the variable that sets each one's port. */
const PORT_VARIABLES = {
  'payments-service': 'PAYMENTS_PORT',
  'workspace-service': 'WORKSPACE_PORT',
  'webhook-dispatcher': 'DISPATCHER_PORT',
  'chain-indexer': 'INDEXER_PORT',
} as const;
export type ServiceName = keyof typeof PORT_VARIABLES;

interface Readiness {
  status?: string;
  failing?: string[];
}

/** Ready, or failing only on a chain RPC (tests that need no chain point it nowhere). */
function usable(body: Readiness): boolean {
  return body.status === 'ready' || (Array.isArray(body.failing) && body.failing.every((name) => name.startsWith('chain:')));
}

export interface RunningProcesses {
  /** Base URL of each started service (`http://127.0.0.1:<port>`). */
  urls: Partial<Record<ServiceName, string>>;
  /** Every variable the processes were started with (database, NATS prefix, bootstrap credentials). */
  env: Record<string, string>;
  db: TestDatabase;
  nats: TestBus;
  stop: () => Promise<void>;
  /** Sends `signal` to a service's process (SIGKILL: a crash, nothing of its shutdown runs) and waits for it to exit. */
  kill: (service: ServiceName, signal: NodeJS.Signals) => Promise<void>;
}

/**
 * Services as real processes (their built `dist/main.js`; production runs the bundle, ADR 31) on a
 * fresh database and a NATS prefix of their own, for tests of clients that must meet the services
 * only over HTTP (the SDK, the CLI). Resolves once each is connected to PostgreSQL and NATS
 * (`/health/ready` with every check but a chain RPC ok: the default chain URL answers nothing). Build
 * the services first (a client package's turbo.json makes its tests depend on their builds).
 */
export async function startServiceProcesses(options: {
  services: ServiceName[];
  /** Extra variables; they win over the generated ones. */
  env?: Record<string, string>;
  /**
   * A database and NATS prefix to join (a test's in-process service already uses them) instead of
   * new ones; `stop` then leaves them to their owner.
   */
  join?: { db: TestDatabase; nats: TestBus };
}): Promise<RunningProcesses> {
  const [db, nats] = options.join ? [options.join.db, options.join.nats] : await Promise.all([createTestDatabase(), createTestBus()]);
  const ports = Object.fromEntries(await Promise.all(options.services.map(async (s) => [s, await freePort()] as const))) as Record<
    ServiceName,
    number
  >;
  const env: Record<string, string> = {
    APP_ENV: 'local',
    LOG_LEVEL: process.env.HOLDFAST_TEST_LOGS || 'silent',
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    REDIS_URL: testRedisUrl(),
    CHAIN_RPC_URLS: 'base-sepolia=http://127.0.0.1:9',
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    JWT_SECRET: randomBytes(32).toString('base64url'),
    INTERNAL_API_KEY: randomBytes(24).toString('base64url'),
    PAYMENTS_BOOTSTRAP_API_KEY: `hf_test_${randomBytes(32).toString('base64url')}`,
    WORKSPACE_BOOTSTRAP_EMAIL: 'admin@holdfast.test',
    WORKSPACE_BOOTSTRAP_PASSWORD: `Hf-${randomBytes(12).toString('base64url')}1!`,
    RATE_LIMIT_PUBLIC: '10000',
    RATE_LIMIT_STANDARD: '10000',
    RATE_LIMIT_HIGH: '10000',
    RATE_LIMIT_ADMIN: '10000',
    ...Object.fromEntries(options.services.map((s) => [PORT_VARIABLES[s], String(ports[s])])),
    ...options.env,
  };
  const children: ChildProcess[] = [];
  const byService = new Map<ServiceName, ChildProcess>();
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    if (options.join) return;
    await nats.dispose();
    await db.drop();
  };
  const urls: Partial<Record<ServiceName, string>> = {};
  try {
    await Promise.all(
      options.services.map(async (service) => {
        const main = join(repoRoot(), 'services', service, 'dist', 'main.js');
        if (!existsSync(main)) throw new Error(`${main} is missing: build the services first (pnpm exec turbo run build)`);
        const output: string[] = [];
        const child = spawn(process.execPath, [main], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        byService.set(service, child);
        for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
        const url = `http://127.0.0.1:${ports[service]}`;
        const deadline = Date.now() + 150_000;
        let lastAnswer = 'no answer';
        for (;;) {
          if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}: ${output.join('').slice(-2000)}`);
          const ok = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(3000) })
            .then(async (r) => {
              lastAnswer = await r.text();
              return usable(JSON.parse(lastAnswer) as Readiness);
            })
            .catch(() => false);
          if (ok) break;
          if (Date.now() > deadline) throw new Error(`${service} did not get ready (${lastAnswer}): ${output.join('').slice(-2000)}`);
          await new Promise((r) => setTimeout(r, 200));
        }
        urls[service] = url;
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const kill = async (service: ServiceName, signal: NodeJS.Signals) => {
    const child = byService.get(service);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  };
  return { urls, env, db, nats, stop, kill };
}

export interface SignedUpWorkspace {
  email: string;
  password: string;
  workspaceId: string;
  /** The workspace's sandbox credentials: a platform, its v1 API key and its v2 OAuth client. */
  sandbox: { platformId: string; apiKey: string; clientId: string; clientSecret: string };
}

async function postJson(url: string, body: unknown, token?: string): Promise<{ status: number; body: { data: Record<string, unknown> } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const answer = { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  if (res.status >= 300) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** The operator (the bootstrap SUPER_ADMIN) of processes started by `startServiceProcesses`. */
export function operatorOf(processes: Pick<RunningProcesses, 'env'>): { email: string; password: string } {
  return { email: processes.env.WORKSPACE_BOOTSTRAP_EMAIL as string, password: processes.env.WORKSPACE_BOOTSTRAP_PASSWORD as string };
}

/** The `operator` (a SUPER_ADMIN) approves a pending workspace (`status: active`), as a Holdfast operator does. */
export async function approveWorkspace(workspaceUrl: string, operator: { email: string; password: string }, workspaceId: string) {
  const operatorLogin = await postJson(`${workspaceUrl}/identity/login`, operator);
  const approved = await fetch(`${workspaceUrl}/api/v1/workspaces/${workspaceId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorLogin.body.data.accessToken as string}` },
    body: JSON.stringify({ status: 'active' }),
  });
  if (approved.status !== 200) throw new Error(`approve workspace ${workspaceId}: ${approved.status} ${await approved.text()}`);
}

/**
 * A new administrator over the Workspace API, as docs/workspace-getting-started.md does it: sign
 * up, verify the e-mail (the code is in the answer in `local`), log in, create a workspace, have
 * the `operator` (a SUPER_ADMIN) approve it (credentials go to active workspaces only), issue
 * sandbox credentials.
 */
export async function signUpWorkspace(
  workspaceUrl: string,
  operator: { email: string; password: string },
  name = `ws${randomBytes(4).toString('hex')}`,
): Promise<SignedUpWorkspace> {
  const email = `${name}@example.com`;
  const password = `Hf-${randomBytes(9).toString('base64url')}7!`;
  const signup = await postJson(`${workspaceUrl}/auth/signup`, {
    email,
    password,
    firstName: 'Ada',
    lastName: 'Lovelace',
    companyName: name,
  });
  await postJson(`${workspaceUrl}/auth/verify-code`, { email, code: signup.body.data.verificationCode });
  const login = await postJson(`${workspaceUrl}/identity/login`, { email, password });
  const token = login.body.data.accessToken as string;
  const workspace = await postJson(`${workspaceUrl}/api/v1/workspaces`, { name, email }, token);
  const workspaceId = workspace.body.data.id as string;
  await approveWorkspace(workspaceUrl, operator, workspaceId);
  const issued = await postJson(`${workspaceUrl}/api/v1/workspaces/${workspaceId}/sandbox-credentials`, {}, token);
  const data = issued.body.data as { platformId: string; apiKey: string; oauthClient: { clientId: string; clientSecret: string } };
  return {
    email,
    password,
    workspaceId,
    sandbox: {
      platformId: data.platformId,
      apiKey: data.apiKey,
      clientId: data.oauthClient.clientId,
      clientSecret: data.oauthClient.clientSecret,
    },
  };
}
