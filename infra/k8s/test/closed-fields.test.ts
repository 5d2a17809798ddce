// Unknown fields: the published validators (src/kustomize.ts) accept them, as the API server's
// OpenAPI does, and a misspelt field is then silently dropped by the cluster. The same packages
// publish TypeScript interfaces of every kind, so each rendered object is written out as an object
// literal of its interface and type-checked: TypeScript refuses a property the interface does not
// have (excess property check), at any depth.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kustomizationDir, type Manifest, render } from '../src/kustomize.ts';

/** The module and interface of a kind's published type. */
function typeOf(object: Manifest): { module: string; name: string } {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  const name = `I${object.kind}`;
  if (group === 'postgresql.cnpg.io') return { module: `@kubernetes-models/cloudnative-pg/${group}/${version}/${object.kind}`, name };
  if (group === 'monitoring.coreos.com')
    return { module: `@kubernetes-models/prometheus-operator/${group}/${version}/${object.kind}`, name };
  return { module: `kubernetes-models/${group ? `${group}/` : ''}${version}/${object.kind}`, name };
}

// Inside node_modules, so that the literals' imports resolve to this package's dependencies.
const cache = join(kustomizationDir(), 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const scratch = mkdtempSync(join(cache, 'closed-fields-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** tsc's errors for these objects, each as a literal of its kind's interface. */
function typeErrors(file: string, objects: Manifest[]): string[] {
  const imports = new Map<string, string>();
  const lines = objects.map((object, i) => {
    const { module, name } = typeOf(object);
    const alias = `${name}_${imports.size}`;
    if (!imports.has(module)) imports.set(module, alias);
    return `export const o${i}: ${imports.get(module)} = ${JSON.stringify(object)};`;
  });
  const head = [...imports].map(([module, alias]) => {
    const name = alias.replace(/_\d+$/, '');
    return `import type { ${name} as ${alias} } from '${module}';`;
  });
  writeFileSync(join(scratch, file), `${head.join('\n')}\n${lines.join('\n')}\n`);
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({ extends: '../../../tsconfig.json', compilerOptions: { noEmit: true }, include: ['*.ts'] }),
  );
  try {
    // --pretty false: ./scripts/test sets FORCE_COLOR, which switches tsc to its pretty format (file:line:col).
    execFileSync(join(kustomizationDir(), 'node_modules', '.bin', 'tsc'), ['--pretty', 'false', '-p', join(scratch, 'tsconfig.json')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return [];
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}`
      .split('\n')
      .filter((line) => line.includes(`${file}(`))
      .map((line) => line.replace(/^.*?\.ts/, file));
  }
}

describe('no field the published types do not know', () => {
  it.each(['staging', 'production', 'production-restore'])('in any object of %s', (overlay) => {
    const objects = render(kustomizationDir('overlays', overlay));
    expect(typeErrors(`${overlay}.ts`, objects)).toEqual([]);
  });

  it('a misspelt field fails, deep in a CloudNativePG Cluster or a Deployment', () => {
    const objects = render(kustomizationDir('overlays', 'production'));
    const cluster = structuredClone(objects.find((o) => o.kind === 'Cluster') as Manifest & { spec: { backup: Record<string, unknown> } });
    cluster.spec.backup.retentionPolicies = '30d';
    const deployment = structuredClone(
      objects.find((o) => o.kind === 'Deployment') as Manifest & {
        spec: { template: { spec: { containers: Record<string, unknown>[] } } };
      },
    );
    (deployment.spec.template.spec.containers[0] as Record<string, unknown>).readinesProbe = {};
    const errors = typeErrors('misspelt.ts', [cluster, deployment]);
    expect(errors.join('\n')).toMatch(/'"retentionPolicies"' does not exist in type 'IBackupConfiguration'/);
    expect(errors.join('\n')).toMatch(/'"readinesProbe"' does not exist in type 'IContainer'/);
  });
});
