// The stack behind ./scripts/start and ./scripts/test (run by Node 24 directly, types stripped).
//   start: dependencies (existing or started here), migrations, the four processes in the foreground.
//   test:  dependencies, type-check, lint, every test, a smoke start of the four processes, the chaos and soak short forms.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { tcpAnswers } from '@holdfast/messaging/ports';
import { ensureChain, LOCAL_CHAIN_ID, LOCAL_NETWORK } from './stack/chain.ts';
import { ensureChromium } from './stack/chromium.ts';
import { deployLocalContracts, type LocalDeployment, localDeploymentFile } from './stack/contracts.ts';
import { createDemoCheckout } from './stack/demo-checkout.ts';
import { withFreshStack } from './stack/fresh-stack.ts';
import { ensureKubectl } from './stack/kubectl.ts';
import { say } from './stack/log.ts';
import { ensureNats, startPermissionedNats } from './stack/nats.ts';
import { ensurePostgres, type Started } from './stack/postgres.ts';
import { migrateAll, runAll, services, waitAllReady } from './stack/processes.ts';
import { productionStart } from './stack/production-start.ts';
import { ensurePromtool } from './stack/promtool.ts';
import { ensureRedis } from './stack/redis.ts';
import { ensureShellcheck } from './stack/shellcheck.ts';
import { smokePayment } from './stack/smoke-payment.ts';

const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const [command, ...rest] = process.argv.slice(2);

/** Shell variables over the .env file, as the processes themselves read them. */
function environment(): NodeJS.ProcessEnv {
  const file = join(root, '.env');
  return { ...(existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {}), ...process.env };
}

/** Local-only credentials made once and kept in .holdfast/local.env: a first admin API key and a super admin. */
function localCredentials(env: NodeJS.ProcessEnv): Record<string, string> {
  if ((env.APP_ENV ?? 'local') !== 'local') return {};
  const file = join(root, '.holdfast', 'local.env');
  mkdirSync(join(root, '.holdfast'), { recursive: true });
  if (!existsSync(file)) {
    const values = {
      PAYMENTS_BOOTSTRAP_API_KEY: `hf_test_${randomBytes(32).toString('base64url')}`,
      WORKSPACE_BOOTSTRAP_EMAIL: 'admin@holdfast.local',
      WORKSPACE_BOOTSTRAP_PASSWORD: `Hf-${randomBytes(12).toString('base64url')}1!`,
    };
    writeFileSync(
      file,
      `${Object.entries(values)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n')}\n`,
      { mode: 0o600 },
    );
  }
  const saved = parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  return Object.fromEntries(Object.entries(saved).filter(([k]) => env[k] === undefined));
}

const started: Started[] = [];
async function stopStarted(): Promise<void> {
  for (const resource of started.reverse()) await resource.stop().catch(() => undefined);
  started.length = 0;
}

function onSignal(handler: () => Promise<void>): void {
  let count = 0;
  const handle = () => {
    count += 1;
    if (count > 1) process.exit(130);
    void handler();
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}

async function dependencies(env: NodeJS.ProcessEnv, withChain: boolean, withNats = true) {
  const pg = await ensurePostgres(root, env.DATABASE_URL);
  if (pg.started) started.push(pg.started);
  const nats = withNats ? await ensureNats(root, env.NATS_URL) : undefined;
  if (nats?.started) started.push(nats.started);
  // The services share their rate-limit counts through it (ADR 25).
  const redis = await ensureRedis(root, env.REDIS_URL);
  if (redis.started) started.push(redis.started);
  const chain = withChain ? await ensureChain(root, env.CHAIN_RPC_URLS) : undefined;
  if (chain?.started) started.push(chain.started);
  // Contracts are deployed only on the anvil started here: a chain of CHAIN_RPC_URLS brings its own
  // ESCROW_CONTRACTS and TOKEN_CONTRACTS.
  let deployment: LocalDeployment | undefined;
  if (chain?.started && chain.localRpcUrl) {
    deployment = await deployLocalContracts({
      rpcUrl: chain.localRpcUrl,
      network: LOCAL_NETWORK,
      chainId: LOCAL_CHAIN_ID,
      recordFile: localDeploymentFile(root),
    });
    for (const [name, value] of Object.entries(deployment.env)) {
      if (env[name] && env[name] !== value) say(`${name} from the environment is ignored: the local anvil's contracts are ${value}`);
    }
  }
  return { databaseUrl: pg.url, natsUrl: nats?.url ?? '', redisUrl: redis.url, chainRpcUrls: chain?.rpcUrls, deployment };
}

async function start(): Promise<void> {
  const env = environment();
  let stopping = false;
  let stack: ReturnType<typeof runAll> | undefined;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping the processes and what this command started…');
    await stack?.stop();
    await stopStarted();
    say('stopped');
    process.exit(code);
  };
  onSignal(() => shutdown(0));

  try {
    const list = services(root);
    const ports: Record<string, number> = {};
    for (const service of list) {
      ports[service.name] = Number(env[service.portEnv] ?? service.port);
      if (await tcpAnswers('127.0.0.1', ports[service.name]!)) {
        throw new Error(`port ${ports[service.name]} (${service.name}) is in use; stop what listens there or set ${service.portEnv}`);
      }
    }
    // Without NATS_URL: a private nats-server with infra/nats's grants, each process its own user.
    const deps = await dependencies(env, true, env.NATS_URL !== undefined);
    const nats = env.NATS_URL ? undefined : await startPermissionedNats(env.NATS_SUBJECT_PREFIX ?? '', join(root, '.holdfast', 'nats'));
    if (nats) started.push(nats);
    const childEnv: NodeJS.ProcessEnv = {
      ...env,
      ...localCredentials(env),
      APP_ENV: env.APP_ENV ?? 'local',
      DATABASE_URL: deps.databaseUrl,
      ...(nats ? {} : { NATS_URL: deps.natsUrl }),
      REDIS_URL: deps.redisUrl,
      CHAIN_RPC_URLS: deps.chainRpcUrls,
      ...deps.deployment?.env,
      ...Object.fromEntries(list.map((s) => [s.portEnv, String(ports[s.name])])),
    };
    await migrateAll(root, childEnv, nats?.envOf);
    const t0 = Date.now();
    stack = runAll(root, childEnv, list, nats?.envOf);
    void stack.exited.then(({ name, code }) => {
      say(`${name} exited (code ${code}); stopping everything`);
      void shutdown(1);
    });
    await waitAllReady(list, ports, 60_000);
    say(`all four processes ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    say(`  Payments API   http://127.0.0.1:${ports['payments-service']}/docs`);
    say(`  Workspace API  http://127.0.0.1:${ports['workspace-service']}/docs`);
    say(`  dispatcher     http://127.0.0.1:${ports['webhook-dispatcher']}/health/ready`);
    say(`  indexer        http://127.0.0.1:${ports['chain-indexer']}/health/ready`);
    if (nats) say(`  NATS           ${nats.adminUrl}  (this run's own full-access user; each process has its own)`);
    if (deps.deployment) {
      say(`  escrow         ${deps.deployment.contracts.escrow.address} on ${LOCAL_NETWORK} (${deps.chainRpcUrls?.split('=')[1]})`);
      say(`  MockUSDC       ${deps.deployment.contracts.mockUsdc.address} (anyone may mint; see docs/chain.md)`);
    }
    if (childEnv.APP_ENV === 'local' && childEnv.PAYMENTS_BOOTSTRAP_API_KEY) {
      say(`  first admin API key   ${childEnv.PAYMENTS_BOOTSTRAP_API_KEY}`);
      say(
        `  super admin           ${childEnv.WORKSPACE_BOOTSTRAP_EMAIL} / ${childEnv.WORKSPACE_BOOTSTRAP_PASSWORD}  (kept in .holdfast/local.env)`,
      );
      // A demo checkout on the local chain (docs/try-a-payment.md "In a browser"); the stack runs without it.
      if (deps.deployment) {
        try {
          const demo = await createDemoCheckout({
            base: `http://127.0.0.1:${ports['payments-service']}`,
            adminKey: childEnv.PAYMENTS_BOOTSTRAP_API_KEY,
            network: LOCAL_NETWORK,
          });
          say(`  demo checkout         ${demo.url}  (25 USDC on the local chain, open 24 h; docs/try-a-payment.md)`);
        } catch (error) {
          say(`  demo checkout         not created: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    say('Ctrl-C stops everything.');
  } catch (error) {
    say(`start failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}

async function step(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { spawn } = await import('node:child_process');
  say(`▶ ${name}`);
  const t0 = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('pnpm', args, { cwd: root, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${name} failed (exit ${code})`))));
  });
  say(`✔ ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

/**
 * The four processes start and become ready on a fresh database and a throw-away anvil with the contracts
 * deployed; a payment goes the product's way (created through the Payments API, locked by the sender's
 * wallet from the answer's `escrow`, published by the indexer, `escrowed` in payments); then they stop cleanly.
 */
async function smoke(databaseUrl: string, redisUrl: string): Promise<void> {
  say('▶ smoke: the four processes reach /health/ready');
  const t0 = Date.now();
  const adminKey = `hf_test_${randomBytes(32).toString('base64url')}`;
  await withFreshStack(
    root,
    {
      tag: 'smoke',
      what: 'smoke start',
      databaseUrl,
      env: async ({ chain }) => ({
        APP_ENV: 'local',
        REDIS_URL: redisUrl,
        PAYMENTS_BOOTSTRAP_API_KEY: adminKey,
        ...(await deployLocalContracts({ rpcUrl: chain.localRpcUrl!, network: LOCAL_NETWORK, chainId: LOCAL_CHAIN_ID })).env,
      }),
    },
    async ({ ports, prefix, chain, nats }) => {
      say(`✔ smoke: ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; ▶ smoke: a payment from the Payments API to escrowed`);
      const t1 = Date.now();
      const payment = await smokePayment({
        root,
        paymentsUrl: `http://127.0.0.1:${ports['payments-service']}`,
        adminKey,
        rpcUrl: chain.localRpcUrl!,
        natsUrl: nats.adminUrl,
        prefix,
        network: LOCAL_NETWORK,
      });
      say(
        `✔ smoke: transaction ${payment.transactionId} created through the API, locked by the sender's createEscrow (${payment.txHash.slice(0, 10)}…), escrowed through the indexer and payments' CHAIN consumer, both seen on the platform's event stream (${((Date.now() - t1) / 1000).toFixed(1)} s)`,
      );
      // The demo checkout ./scripts/start prints: made the same way, and its hosted page answers.
      const paymentsUrl = `http://127.0.0.1:${ports['payments-service']}`;
      const demo = await createDemoCheckout({ base: paymentsUrl, adminKey, network: LOCAL_NETWORK });
      const page = await fetch(demo.url.replace(/^https?:\/\/[^/]+/, paymentsUrl), { signal: AbortSignal.timeout(10_000) });
      const data = await fetch(`${paymentsUrl}/api/v2/checkout/sessions/${demo.sessionId}/page`, { signal: AbortSignal.timeout(10_000) });
      const body = (await data.json()) as { session?: { status?: string }; chain?: { id?: number } };
      if (page.status !== 200 || data.status !== 200 || body.session?.status !== 'open' || body.chain?.id !== LOCAL_CHAIN_ID)
        throw new Error(
          `smoke: the demo checkout ${demo.url} answered ${page.status} / ${data.status} ${JSON.stringify(body).slice(0, 300)}`,
        );
      say(`✔ smoke: the demo checkout's page answers (${demo.url})`);
    },
  );
  say(`✔ smoke (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

async function test(): Promise<void> {
  const env = environment();
  onSignal(async () => {
    await stopStarted();
    process.exit(130);
  });
  const t0 = Date.now();
  let failed: unknown;
  try {
    const deps = await dependencies(env, false);
    const testEnv: NodeJS.ProcessEnv = {
      ...env,
      DATABASE_URL: deps.databaseUrl,
      NATS_URL: deps.natsUrl,
      REDIS_URL: deps.redisUrl,
      // The hosted checkout page's browser tests drive Debian's Chromium (ADR 46).
      HOLDFAST_CHROMIUM: ensureChromium(env),
      // infra/observability's alert rules are checked and unit-tested by Prometheus's own promtool.
      HOLDFAST_PROMTOOL: ensurePromtool(root, env),
      // infra/k8s renders its overlays with `kubectl kustomize` and lints the Dockerfiles (ShellCheck on each RUN).
      HOLDFAST_KUBECTL: ensureKubectl(root, env),
      HOLDFAST_SHELLCHECK: ensureShellcheck(env),
      FORCE_COLOR: env.FORCE_COLOR ?? '1',
    };
    await step('type-check', ['exec', 'turbo', 'run', 'typecheck', '--output-logs=errors-only'], testEnv);
    await step('lint and format (biome)', ['exec', 'biome', 'check', '--error-on-warnings', '.'], testEnv);
    await step('tests', ['exec', 'turbo', 'run', 'test', '--output-logs=new-only', '--concurrency=2', ...rest], testEnv);
    await smoke(deps.databaseUrl, deps.redisUrl);
    await productionStart(root, deps.databaseUrl, deps.redisUrl);
    // The chaos suite's short form (docs/reliability.md): kill -9 of payments and of the dispatcher
    // under load, a backup restored to a moment and a PostgreSQL failover, on its own PostgreSQL, NATS
    // and anvil; nothing may be lost.
    await step('chaos, short form (scripts/chaos)', ['exec', 'node', 'scripts/chaos/chaos.ts', '--short'], testEnv);
    // Every benchmark's smoke form (small counts, about a minute and a half), so none of them can rot:
    // each must complete and print its PASS/MISS lines; nothing is asserted about speed or memory (the
    // numbers of a loaded CI machine mean nothing: docs/benchmarks.md holds a quiet run). The soak's
    // smoke form is 2,000 mixed requests with no failed request and every webhook delivered.
    await step('benchmarks, smoke form (scripts/bench/all.ts --smoke)', ['exec', 'node', 'scripts/bench/all.ts', '--smoke'], testEnv);
  } catch (error) {
    failed = error;
  }
  await stopStarted();
  if (failed) {
    say(`FAILED: ${failed instanceof Error ? failed.message : String(failed)} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    process.exit(1);
  }
  say(`all checks passed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** Only the smoke start (`node scripts/lib/stack.ts smoke [--production]`, after a build): what ./scripts/test runs last. */
async function smokeOnly(): Promise<void> {
  const env = environment();
  onSignal(async () => {
    await stopStarted();
    process.exit(130);
  });
  let failed: unknown;
  try {
    const deps = await dependencies(env, false);
    if (rest.includes('--production')) await productionStart(root, deps.databaseUrl, deps.redisUrl);
    else await smoke(deps.databaseUrl, deps.redisUrl);
  } catch (error) {
    failed = error;
  }
  await stopStarted();
  if (failed) {
    say(`FAILED: ${failed instanceof Error ? failed.message : String(failed)}`);
    process.exit(1);
  }
}

if (command === 'start') await start();
else if (command === 'test') await test();
else if (command === 'smoke') await smokeOnly();
else {
  process.stderr.write('usage: stack.ts start | test [turbo test args] | smoke\n');
  process.exit(2);
}
