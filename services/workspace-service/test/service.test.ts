import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { runMainExpectingExit, startTestService, type TestService } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceService, type WorkspaceConfig, workspaceConfigFrom } from '../src/index.js';

let service: TestService<WorkspaceConfig>;

beforeAll(async () => {
  service = await startTestService({
    name: 'workspace-service',
    configFrom: workspaceConfigFrom,
    create: createWorkspaceService,
    chain: true,
  });
});

afterAll(() => service?.stop());

describe('workspace-service process', () => {
  it('is ready when PostgreSQL, NATS and the chain RPC answer', async () => {
    const res = await request(`${service.url}/health/ready`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok', 'chain:base-sepolia': 'ok' } });
  });

  it('serves a valid OpenAPI 3.1 description', async () => {
    const doc = (await (await request(`${service.url}/openapi.json`)).body.json()) as { openapi: string; info: { title: string } };
    expect(doc.info.title).toBe('Holdfast Workspace API');
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it('marks unversioned /api routes deprecated and leaves /api/v1 alone', async () => {
    const old = await request(`${service.url}/api/workspaces`);
    expect(old.headers).toMatchObject({
      'x-api-version': 'v1',
      deprecation: 'true',
      sunset: 'Mon, 01 Jun 2026 00:00:00 GMT',
      link: '</api/v1>; rel="successor-version"',
    });
    const current = await request(`${service.url}/api/v1/workspaces`);
    expect(current.headers.deprecation).toBeUndefined();
  });
});

describe('workspace-service start-up', () => {
  it('refuses in production missing secrets, missing NATS credentials and a public development deployer key, one line each', async () => {
    const result = await runMainExpectingExit(fileURLToPath(new URL('../dist/main.js', import.meta.url)), {
      APP_ENV: 'production',
      SIWE_DOMAIN: 'pay.example.com',
      MAILER_TRANSPORT: 'http',
      MAILER_HTTP_URL: 'https://mail.example.com',
      MAILER_API_KEY: 'm'.repeat(24),
      // anvil's account #8: the local deployer, whose key anyone can read.
      CONTRACT_DEPLOYER_PRIVATE_KEY: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
    });
    expect(result.code).toBe(1);
    expect(result.stderrLines).toEqual([
      'workspace-service: configuration error: INTERNAL_API_KEY: is required when APP_ENV is production (missing)',
      'workspace-service: configuration error: DATA_ENCRYPTION_KEY: is required when APP_ENV is production (missing)',
      'workspace-service: configuration error: JWT_SECRET: is required when APP_ENV is production (missing)',
      'workspace-service: configuration error: REDIS_URL: is required when APP_ENV is production (missing)',
      "workspace-service: configuration error: NATS_USER: production needs this process's own NATS user: NATS_USER and NATS_PASSWORD, or NATS_NKEY_SEED (missing)",
      "workspace-service: configuration error: CONTRACT_DEPLOYER_PRIVATE_KEY: is a public development key (anvil's default accounts); production needs a key of your own",
    ]);
  });

  it('refuses to start without APP_ENV: no development fallback unless local is asked for', async () => {
    const result = await runMainExpectingExit(fileURLToPath(new URL('../dist/main.js', import.meta.url)), {});
    expect(result.code).toBe(1);
    expect(result.stderrLines).toEqual([
      'workspace-service: configuration error: APP_ENV: must be set to local, staging or production; a process never assumes one (./scripts/start sets local) (missing)',
    ]);
  });

  it('refuses bad configuration with one line per problem', async () => {
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    const result = await runMainExpectingExit(main, { APP_ENV: 'staging', NATS_URL: 'localhost:4222' });
    expect(result.code).toBe(1);
    expect(result.stderrLines).toEqual([
      'workspace-service: configuration error: NATS_URL: must be one or more nats:// URLs, comma-separated (got "localhost:4222")',
    ]);
    const missing = await runMainExpectingExit(main, { APP_ENV: 'staging' });
    expect(missing.stderrLines).toEqual([
      'workspace-service: configuration error: INTERNAL_API_KEY: is required when APP_ENV is staging (missing)',
      'workspace-service: configuration error: DATA_ENCRYPTION_KEY: is required when APP_ENV is staging (missing)',
      'workspace-service: configuration error: JWT_SECRET: is required when APP_ENV is staging (missing)',
      'workspace-service: configuration error: SIWE_DOMAIN: is required when APP_ENV is staging (missing)',
      'workspace-service: configuration error: REDIS_URL: is required when APP_ENV is staging (missing)',
    ]);
  });
});
