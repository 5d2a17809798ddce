import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { ensureChain } from './chain.ts';
import { say } from './log.ts';
import { startPermissionedNats } from './nats.ts';
import { portFor } from './ports.ts';
import { migrateAll, runAll, services, waitAllReady } from './processes.ts';

/**
 * The production path, exercised on every `./scripts/test`: the four processes start with
 * `APP_ENV=production` and secrets generated for this run (none of the local fallbacks), on a
 * fresh database, and reach /health/ready. Vendors are configured (production needs them) but
 * never called during a start.
 */
export async function productionStart(root: string, databaseUrl: string, redisUrl: string): Promise<void> {
  say('▶ production start: the four processes with APP_ENV=production and generated secrets reach /health/ready');
  const t0 = Date.now();
  const database = `hf_prod_${randomBytes(4).toString('hex')}`;
  const admin = postgres(databaseUrl.replace(/\/[^/?]*(\?|$)/, '/postgres$1'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${database}"`);
  const chain = await ensureChain(root, undefined, { ephemeral: true });
  const list = services(root);
  const ports = Object.fromEntries(await Promise.all(list.map(async (s) => [s.name, await portFor(0)] as const)));
  const prefix = `prod${randomBytes(3).toString('hex')}.`;
  const secret = (bytes: number) => randomBytes(bytes).toString('base64url');
  // Each process connects as its own NATS user with only its own subjects (infra/nats).
  const nats = await startPermissionedNats(prefix);
  let stack: ReturnType<typeof runAll> | undefined;
  try {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      APP_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl.replace(/\/[^/?]*(\?|$)/, `/${database}$1`),
      NATS_SUBJECT_PREFIX: prefix,
      // Required in production: the instances share their rate-limit counts there.
      REDIS_URL: redisUrl,
      CHAIN_RPC_URLS: chain.rpcUrls,
      JWT_SECRET: secret(48),
      INTERNAL_API_KEY: secret(32),
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PAYMENTS_ATTESTER_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
      CONTRACT_DEPLOYER_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
      IDENTITY_PROVIDER_URL: 'https://identity.holdfast.invalid',
      IDENTITY_PROVIDER_API_KEY: secret(24),
      IDENTITY_PROVIDER_WEBHOOK_SECRET: secret(32),
      SIWE_DOMAIN: 'pay.holdfast.invalid',
      MAILER_TRANSPORT: 'http',
      MAILER_HTTP_URL: 'https://mail.holdfast.invalid',
      MAILER_API_KEY: secret(24),
      ...Object.fromEntries(list.map((s) => [s.portEnv, String(ports[s.name])])),
    };
    await migrateAll(root, env, nats.envOf);
    stack = runAll(root, env, list, nats.envOf);
    await Promise.race([
      waitAllReady(list, ports, 60_000),
      stack.exited.then(({ name, code }) => {
        throw new Error(`${name} exited with ${code} during the production start`);
      }),
    ]);
  } finally {
    await stack?.stop();
    await chain.started?.stop();
    await nats.stop();
    await admin.unsafe(`drop database if exists "${database}" with (force)`);
    await admin.end();
  }
  say(`✔ production start (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
