import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the folder holding pnpm-workspace.yaml). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('pnpm-workspace.yaml not found above the test fixtures');
    dir = parent;
  }
  return dir;
}

export interface ServiceMigrations {
  service: string;
  /** The PostgreSQL schema the service owns (package.json `holdfast.schema`). */
  schemaName: string;
  migrationsFolder: string;
}

/** Every service that owns a schema, from its package.json `holdfast` field. */
export function serviceMigrations(root = repoRoot()): ServiceMigrations[] {
  const services = join(root, 'services');
  if (!existsSync(services)) return [];
  return readdirSync(services)
    .map((name) => ({ name, pkg: join(services, name, 'package.json') }))
    .filter(({ pkg }) => existsSync(pkg))
    .flatMap(({ name, pkg }) => {
      const manifest = JSON.parse(readFileSync(pkg, 'utf8')) as { holdfast?: { schema?: string } };
      const schemaName = manifest.holdfast?.schema;
      const migrationsFolder = join(services, name, 'drizzle');
      return schemaName && existsSync(migrationsFolder) ? [{ service: name, schemaName, migrationsFolder }] : [];
    });
}
