import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { fileFixture, itRefusesToStart, readinessOf, startTestService } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createWorkspaceService, workspaceConfigFrom } from '../../src/index.js';

const service = fileFixture(() =>
  startTestService({ name: 'workspace-service', configFrom: workspaceConfigFrom, create: createWorkspaceService, chain: true }),
);

describe('workspace-service process', () => {
  it('is ready when PostgreSQL, NATS and the chain RPC answer', async () => {
    expect(await readinessOf(service.url)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'ok', nats: 'ok', 'chain:base-sepolia': 'ok' } },
    });
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
  itRefusesToStart('workspace-service', fileURLToPath(new URL('../../dist/main.js', import.meta.url)), [
    {
      refuses: 'in production missing secrets, missing NATS credentials and a public development deployer key, one line each',
      env: {
        APP_ENV: 'production',
        SIWE_DOMAIN: 'pay.example.com',
        MAILER_TRANSPORT: 'http',
        MAILER_HTTP_URL: 'https://mail.example.com',
        MAILER_API_KEY: 'm'.repeat(24),
        // anvil's account #8: the local deployer, whose key anyone can read.
        CONTRACT_DEPLOYER_PRIVATE_KEY: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
      },
      problems: [
        'INTERNAL_API_KEY: is required when APP_ENV is production (missing)',
        'DATA_ENCRYPTION_KEY: is required when APP_ENV is production (missing)',
        'JWT_SECRET: is required when APP_ENV is production (missing)',
        'REDIS_URL: is required when APP_ENV is production (missing)',
        "NATS_USER: production needs this process's own NATS user: NATS_USER and NATS_PASSWORD, or NATS_NKEY_SEED (missing)",
        "CONTRACT_DEPLOYER_PRIVATE_KEY: is a public development key (anvil's default accounts); production needs a key of your own",
      ],
    },
    {
      refuses: 'a malformed NATS_URL with one line per problem',
      env: { APP_ENV: 'staging', NATS_URL: 'localhost:4222' },
      problems: ['NATS_URL: must be one or more nats:// URLs, comma-separated (got "localhost:4222")'],
    },
    {
      refuses: 'staging without its secrets, one line per missing one',
      env: { APP_ENV: 'staging' },
      problems: [
        'INTERNAL_API_KEY: is required when APP_ENV is staging (missing)',
        'DATA_ENCRYPTION_KEY: is required when APP_ENV is staging (missing)',
        'JWT_SECRET: is required when APP_ENV is staging (missing)',
        'SIWE_DOMAIN: is required when APP_ENV is staging (missing)',
        'REDIS_URL: is required when APP_ENV is staging (missing)',
      ],
    },
  ]);
});
