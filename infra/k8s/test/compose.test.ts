// docker-compose.yml, checked without a container engine: each process gets its own secrets and
// its own NATS password, never the whole .env (a process broken into would otherwise hold every
// other process's NATS credentials and could publish as any of them).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kustomizationDir } from '../src/kustomize.ts';

const repo = kustomizationDir('..', '..');
const compose = parse(readFileSync(join(repo, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { env_file?: { path: string }[]; environment?: Record<string, string> }>;
};
const processes = {
  'payments-service': 'PAYMENTS',
  'workspace-service': 'WORKSPACE',
  'webhook-dispatcher': 'DISPATCHER',
  'chain-indexer': 'INDEXER',
} as const;
const natsPasswordVariables = (text: string) => [...text.matchAll(/HOLDFAST_NATS_[A-Z]+_PASSWORD/g)].map((m) => m[0]);

describe('docker-compose.yml', () => {
  it('hands no container the whole .env', () => {
    const readers = Object.entries(compose.services).filter(([, s]) => (s.env_file ?? []).some((f) => f.path === '.env'));
    expect(readers.map(([name]) => name)).toEqual([]);
  });

  it.each(Object.entries(processes))('%s reads its own env file and only its own NATS password', (name, user) => {
    const service = compose.services[name];
    expect(service?.env_file?.map((f) => f.path)).toEqual([`infra/env/${name}.env`]);
    expect(service?.environment?.NATS_USER).toBe(name);
    expect(natsPasswordVariables(JSON.stringify(service?.environment ?? {}))).toEqual([`HOLDFAST_NATS_${user}_PASSWORD`]);
  });

  it('the NATS setup gets only its own password, nats-server all five', () => {
    expect(natsPasswordVariables(JSON.stringify(compose.services['nats-setup']?.environment))).toEqual(['HOLDFAST_NATS_SETUP_PASSWORD']);
    expect(new Set(natsPasswordVariables(JSON.stringify(compose.services.nats?.environment))).size).toBe(5);
  });

  it('git ignores the env files, whose README names each file', () => {
    expect(readFileSync(join(repo, '.gitignore'), 'utf8')).toContain('infra/env/*.env');
    const readme = readFileSync(join(repo, 'infra', 'env', 'README.md'), 'utf8');
    for (const name of Object.keys(processes)) expect(readme).toContain(`${name}.env`);
  });

  // The README's table against what each process's configuration refuses to start without.
  it.each([
    ['payments-service', 'paymentsConfigFrom'],
    ['workspace-service', 'workspaceConfigFrom'],
    ['webhook-dispatcher', 'dispatcherConfigFrom'],
    ['chain-indexer', 'indexerConfigFrom'],
  ])('infra/env/README.md lists what %s requires in production', async (name, from) => {
    const config = (await import(join(repo, 'services', name, 'dist', 'config.js'))) as Record<string, (env: object) => unknown>;
    const environment = compose.services[name]?.environment ?? {};
    let problems: string[] = [];
    try {
      config[from]?.({ ...environment, APP_ENV: 'production', NATS_PASSWORD: 'p-compose-test' });
    } catch (error) {
      problems = String((error as Error).message)
        .split('\n')
        .slice(1);
    }
    const required = problems.map((line) => line.split(':')[0] ?? line);
    const row = readFileSync(join(repo, 'infra', 'env', 'README.md'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith(`| \`${name}.env\``));
    expect(row).toBeDefined();
    for (const variable of required) expect(row, variable).toContain(`\`${variable}`);
  });
});
