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
    ]);
  });
});
