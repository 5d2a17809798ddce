import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { fileFixture, itRefusesToStart, readinessOf, startTestService } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { LOCAL_ATTESTER_KEY, LOCAL_IDENTITY_PROVIDER_WEBHOOK_SECRET } from '../../src/config.js';
import { createPaymentsService, paymentsConfigFrom } from '../../src/index.js';
import { NON_LOCAL_SECRETS } from '../support/harness.js';

/** The secrets a non-local environment must set. */
const STAGING_SECRETS = { ...NON_LOCAL_SECRETS, REDIS_URL: 'redis://redis.example.com:6379' };

const service = fileFixture(() =>
  startTestService({ name: 'payments-service', configFrom: paymentsConfigFrom, create: createPaymentsService, chain: true }),
);

describe('payments-service process', () => {
  it('is ready when PostgreSQL, NATS and the chain RPC answer and the relayer can pay', async () => {
    expect(await readinessOf(service.url)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'ok', nats: 'ok', 'chain:base-sepolia': 'ok', 'relayer:base-sepolia': 'ok' } },
    });
  });

  it('serves a valid OpenAPI 3.1 description and the docs page', async () => {
    const doc = (await (await request(`${service.url}/openapi.json`)).body.json()) as { openapi: string; info: { title: string } };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Holdfast Payments API');
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect((await request(`${service.url}/docs/`)).statusCode).toBe(200);
  });

  it('marks every v1 answer deprecated with its sunset and v2 successor, errors included', async () => {
    const res = await request(`${service.url}/api/v1/no-such-route`);
    expect(res.statusCode).toBe(404);
    expect(res.headers).toMatchObject({
      'x-api-version': 'v1',
      deprecation: 'true',
      sunset: 'Sun, 01 Nov 2026 00:00:00 GMT',
      link: '</api/v2>; rel="successor-version"',
    });
    const v2 = await request(`${service.url}/api/v2/no-such-route`);
    expect(v2.headers['x-api-version']).toBe('v2');
    expect(v2.headers.deprecation).toBeUndefined();
  });
});

describe('payments-service start-up', () => {
  itRefusesToStart('payments-service', fileURLToPath(new URL('../../dist/main.js', import.meta.url)), [
    {
      refuses:
        'in production a missing INTERNAL_API_KEY, missing NATS credentials, the local attester key and the published identity-provider secret, one line each',
      env: {
        APP_ENV: 'production',
        ...STAGING_SECRETS,
        INTERNAL_API_KEY: '',
        PAYMENTS_ATTESTER_PRIVATE_KEY: LOCAL_ATTESTER_KEY,
        IDENTITY_PROVIDER_WEBHOOK_SECRET: LOCAL_IDENTITY_PROVIDER_WEBHOOK_SECRET,
      },
      problems: [
        'INTERNAL_API_KEY: is required when APP_ENV is production (missing)',
        "NATS_USER: production needs this process's own NATS user: NATS_USER and NATS_PASSWORD, or NATS_NKEY_SEED (missing)",
        "PAYMENTS_ATTESTER_PRIVATE_KEY: is a public development key (anvil's default accounts); production needs a key of your own",
        'IDENTITY_PROVIDER_WEBHOOK_SECRET: is a value published in the Holdfast repository; production needs a secret of your own',
      ],
    },
    {
      refuses: 'a malformed DATABASE_URL with one clear line and a non-zero exit',
      env: { APP_ENV: 'local', DATABASE_URL: 'mysql//oops', PAYMENTS_PORT: 'ninety' },
      problems: [
        'DATABASE_URL: must be a postgres:// or postgresql:// URL with a host (got "mysql//oops")',
        'PAYMENTS_PORT: must be a TCP port from 0 to 65535 (got "ninety")',
      ],
    },
  ]);

  it('takes the local attester key where it belongs: as the local fallback', () => {
    expect(paymentsConfigFrom({ PAYMENTS_ATTESTER_PRIVATE_KEY: LOCAL_ATTESTER_KEY }).settlement.attesterPrivateKey).toBe(
      LOCAL_ATTESTER_KEY,
    );
  });

  it('takes a bootstrap API key only in the form of its environment', () => {
    const key = `hf_test_${'A'.repeat(43)}`;
    expect(paymentsConfigFrom({ PAYMENTS_BOOTSTRAP_API_KEY: key }).PAYMENTS_BOOTSTRAP_API_KEY).toBe(key);
    expect(() => paymentsConfigFrom({ PAYMENTS_BOOTSTRAP_API_KEY: 'short' })).toThrow(/PAYMENTS_BOOTSTRAP_API_KEY: must be hf_test_/);
    expect(() => paymentsConfigFrom({ PAYMENTS_BOOTSTRAP_API_KEY: `hf_live_${'A'.repeat(43)}` })).toThrow(
      /must start with hf_test_ when APP_ENV is local/,
    );
    expect(() => paymentsConfigFrom({ PAYMENTS_PUBLIC_URL: 'ftp://x' })).toThrow(/PAYMENTS_PUBLIC_URL/);
    expect(paymentsConfigFrom({ PAYMENTS_PUBLIC_URL: 'https://pay.example.com/' }).publicUrl).toBe('https://pay.example.com');
  });

  it('knows where the Workspace API is (for the v1 webhook Link): the local stack in local, as configured elsewhere', () => {
    expect(paymentsConfigFrom({}).workspaceApiUrl).toBe('http://127.0.0.1:3002');
    expect(paymentsConfigFrom({ APP_ENV: 'staging', ...STAGING_SECRETS }).workspaceApiUrl).toBeUndefined();
    expect(paymentsConfigFrom({ PAYMENTS_WORKSPACE_API_URL: 'https://ws.example.com/' }).workspaceApiUrl).toBe('https://ws.example.com');
    expect(() => paymentsConfigFrom({ PAYMENTS_WORKSPACE_API_URL: 'ws.example.com' })).toThrow(/PAYMENTS_WORKSPACE_API_URL/);
  });

  it('requires the identity provider outside local, and has a local callback secret only in local', () => {
    expect(() => paymentsConfigFrom({ APP_ENV: 'staging', INTERNAL_API_KEY: 'k'.repeat(32) })).toThrow(
      /IDENTITY_PROVIDER_URL: is required when APP_ENV is staging[\s\S]*IDENTITY_PROVIDER_WEBHOOK_SECRET: is required/,
    );
    expect(paymentsConfigFrom({}).identityProvider).toMatchObject({
      url: undefined,
      webhookSecret: LOCAL_IDENTITY_PROVIDER_WEBHOOK_SECRET,
    });
    const staging = paymentsConfigFrom({ APP_ENV: 'staging', ...STAGING_SECRETS }).identityProvider;
    expect(staging).toEqual({ url: 'https://idp.example.com', apiKey: 'i'.repeat(24), timeoutMs: 10_000, webhookSecret: 's'.repeat(32) });
    expect(() => paymentsConfigFrom({ IDENTITY_PROVIDER_URL: 'https://idp.example.com' })).toThrow(
      /IDENTITY_PROVIDER_API_KEY: is required with IDENTITY_PROVIDER_URL/,
    );
    expect(() => paymentsConfigFrom({ IDENTITY_PROVIDER_WEBHOOK_SECRET: 'short' })).toThrow(/IDENTITY_PROVIDER_WEBHOOK_SECRET/);
  });

  it('requires the internal API key outside local', async () => {
    expect(() => paymentsConfigFrom({ APP_ENV: 'production' })).toThrow(/INTERNAL_API_KEY: is required when APP_ENV is production/);
  });

  it('requires REDIS_URL outside local: without it each instance would allow a whole rate limit', () => {
    const { REDIS_URL: _redis, ...withoutRedis } = STAGING_SECRETS;
    for (const APP_ENV of ['staging', 'production']) {
      expect(() => paymentsConfigFrom({ APP_ENV, ...withoutRedis })).toThrow(
        new RegExp(`REDIS_URL: is required when APP_ENV is ${APP_ENV} \\(missing\\)`),
      );
    }
    expect(() => paymentsConfigFrom({ REDIS_URL: '127.0.0.1:6379' })).toThrow(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(paymentsConfigFrom({}).REDIS_URL).toBeUndefined();
  });

  it('requires DATA_ENCRYPTION_KEY outside local: codes waiting to be sent are sealed with it', () => {
    const { DATA_ENCRYPTION_KEY: _key, ...withoutKey } = STAGING_SECRETS;
    for (const APP_ENV of ['staging', 'production']) {
      expect(() => paymentsConfigFrom({ APP_ENV, ...withoutKey })).toThrow(
        new RegExp(`DATA_ENCRYPTION_KEY: is required when APP_ENV is ${APP_ENV} \\(missing\\)`),
      );
    }
    expect(paymentsConfigFrom({ APP_ENV: 'staging', ...STAGING_SECRETS }).codeKeyring).not.toBeNull();
  });
});
