import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const conditions = ['@holdfast/source', 'module', 'node', 'import', 'default'];

/**
 * Shared vitest settings for every package. Workspace packages resolve to their TypeScript sources
 * (the `@holdfast/source` export condition), so tests never need a prior build.
 * `infrastructure: true` adds the global setup that finds PostgreSQL and NATS and builds the
 * migrated template database.
 */
export function holdfastVitestConfig(options: { infrastructure?: boolean; test?: ViteUserConfig['test'] } = {}): ViteUserConfig {
  const globalSetup = options.infrastructure
    ? [fileURLToPath(new URL('./packages/test-fixtures/src/global-setup.ts', import.meta.url))]
    : [];
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
    // The runner that loads the global setup resolves through its own environment.
    environments: { __vitest__: { resolve: { conditions, externalConditions: conditions } } },
    test: {
      environment: 'node',
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      // `expect.poll` waits for a side effect of another process (a delivery, a state): one second,
      // vitest's default, is too short on a loaded CI machine (2 cores), where it failed at random.
      expect: { poll: { timeout: 10_000 } },
      globalSetup,
      ...options.test,
    },
  });
}
