import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, serviceMigrations } from '@holdfast/db/testing';
import { describe, expect, it } from 'vitest';

// "A process never reads or writes another's schema": checked on what each service ships.
const services = serviceMigrations();

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(suffix))
    .map((d) => join(d.parentPath, d.name));
}

describe('schema ownership', () => {
  it('finds the four services and their schemas', () => {
    expect(services.map((s) => s.schemaName).sort()).toEqual(['indexer', 'payments', 'webhooks', 'workspace']);
  });

  it.each(services)('$service migrations touch only schema $schemaName', ({ schemaName, migrationsFolder }) => {
    for (const file of filesUnder(migrationsFolder, '.sql')) {
      const qualified = [...readFileSync(file, 'utf8').matchAll(/"([a-z_]+)"\."[a-z_]+"/g)].map((m) => m[1]);
      expect(new Set(qualified), file).toEqual(new Set([schemaName]));
    }
  });

  it.each(services)('$service source declares no schema but its own and imports no other service', ({ service, schemaName }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    for (const file of filesUnder(src, '.ts')) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/pgSchema\(\s*'([a-z_]+)'\s*\)/g)) expect(match[1], file).toBe(schemaName);
      for (const match of text.matchAll(/from '@holdfast\/([a-z-]+)'/g)) {
        expect(
          ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'].filter((s) => s !== service),
          file,
        ).not.toContain(match[1]);
      }
    }
  });
});

// Outbound requests to URLs a tenant chose go through @holdfast/outbound (docs/adr/0016): the one
// place that classifies addresses and builds the guarded connector. A service that builds its own
// would be a second, diverging SSRF policy.
describe('outbound safety', () => {
  it.each(services)('$service builds no address list or undici connector of its own', ({ service }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    for (const file of filesUnder(src, '.ts')) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/\bbuildConnector\b|\bBlockList\b/);
    }
  });

  it('packages import no service', () => {
    const packages = join(repoRoot(), 'packages');
    const dirs = readdirSync(packages, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => ['src', 'test'].map((sub) => join(packages, d.name, sub)))
      .filter((dir) => existsSync(dir));
    for (const file of dirs.flatMap((dir) => filesUnder(dir, '.ts'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from '@holdfast\/([a-z-]+)/g)) {
        expect(['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'], file).not.toContain(match[1]);
      }
    }
  });
});
