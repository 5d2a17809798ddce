import { randomBytes } from 'node:crypto';
import { withFreshStack } from './fresh-stack.ts';
import { say } from './log.ts';

/**
 * The production path, exercised on every `./scripts/test`: the four processes start with
 * `APP_ENV=production` and secrets generated for this run (none of the local fallbacks), on a
 * fresh database, and reach /health/ready. Vendors are configured (production needs them) but
 * never called during a start.
 */
export async function productionStart(root: string, databaseUrl: string, redisUrl: string): Promise<void> {
  say('▶ production start: the four processes with APP_ENV=production and generated secrets reach /health/ready');
  const t0 = Date.now();
  const secret = (bytes: number) => randomBytes(bytes).toString('base64url');
  await withFreshStack(root, {
    tag: 'prod',
    what: 'production start',
    databaseUrl,
    env: () => ({
      APP_ENV: 'production',
      // Required in production: the instances share their rate-limit counts there.
      REDIS_URL: redisUrl,
      JWT_SECRET: secret(48),
      INTERNAL_API_KEY: secret(32),
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PAYMENTS_ATTESTER_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
      CONTRACT_DEPLOYER_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
      IDENTITY_PROVIDER_URL: 'https://identity.holdfast.invalid',
      IDENTITY_PROVIDER_API_KEY: secret(24),
      IDENTITY_PROVIDER_WEBHOOK_SECRET: secret(32),
      PAYMENTS_PUBLIC_URL: 'https://payments.holdfast.invalid',
      SIWE_DOMAIN: 'pay.holdfast.invalid',
      MAILER_TRANSPORT: 'http',
      MAILER_HTTP_URL: 'https://mail.holdfast.invalid',
      MAILER_API_KEY: secret(24),
    }),
  });
  say(`✔ production start (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
